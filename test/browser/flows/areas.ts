import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, seedImage, type FlowContext } from '../flow-support.js';

/**
 * Areas and relationships in the admin, driven by accessible names: rich text (bold, a heading
 * style), adding and reordering widgets, the image widget, a relationship picked with the search
 * combobox, all saved with the editor's "Save draft" and checked over the API.
 */
interface Doc {
  _id: string;
  cmsDocId: string;
  title: string;
  [field: string]: unknown;
}

interface Area {
  items: { _id: string; type: string; content?: string; caption?: string; _image?: Doc[] }[];
}

const unique = () => Math.random().toString(36).slice(2, 8);

async function newArticle(ctx: FlowContext, title: string): Promise<Doc> {
  return api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title } });
}

async function openEditor(page: Page, ctx: FlowContext, doc: Doc): Promise<void> {
  await page.goto(`${ctx.baseUrl}/admin/types/article/${doc.cmsDocId}?locale=en`);
  await page.getByRole('button', { name: 'Add content to Body' }).waitFor();
}

/** Clicks "Save draft" and waits for the server to answer the write. */
async function saveDraft(page: Page): Promise<void> {
  const saved = page.waitForResponse(
    (response) => response.url().includes('/api/v1/article') && response.request().method() !== 'GET',
  );
  await page.getByRole('button', { name: 'Save draft' }).click();
  const response = await saved;
  assert.ok(response.ok(), `saving answered ${response.status()}`);
}

async function draftOf(ctx: FlowContext, doc: Doc): Promise<Doc> {
  return api<Doc>(ctx, `/article/${doc.cmsDocId}:en:draft`);
}

async function addWidget(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: 'Add content to Body' }).click();
  await page.getByRole('menuitem', { name: label }).click();
}

/** Rich text with a heading style and bold, a second widget moved above it, and an author. */
export async function richTextReorderAndRelationship(page: Page, ctx: FlowContext): Promise<void> {
  const authorName = `Flow Author ${unique()}`;
  const [article, author] = await Promise.all([
    newArticle(ctx, `Areas flow ${unique()}`),
    api<Doc>(ctx, '/@cms/user', {
      method: 'POST',
      body: { title: authorName, username: `flow-${unique()}`, password: 'correct horse battery', role: 'contributor' },
    }),
  ]);
  await openEditor(page, ctx, article);

  // 1. A rich-text widget: a heading, then a paragraph with a bold run.
  await addWidget(page, 'Rich Text');
  const first = page.getByRole('textbox', { name: 'Body: Rich Text 1' });
  await first.click();
  await page.keyboard.type('Harbour at dawn');
  await page.getByRole('combobox', { name: 'Text style' }).selectOption({ label: 'H2' });
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('The boats come in ');
  const bold = page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).getByRole('button', { name: 'Bold' });
  await bold.click();
  // The toolbar follows the editor's state a frame or two later.
  await toolbarButton(page, 'Body: Rich Text 1', 'Bold', true).waitFor();
  await page.keyboard.type('before six');
  await bold.click();
  await toolbarButton(page, 'Body: Rich Text 1', 'Bold', false).waitFor();

  // 2. A second widget, moved above the first.
  await addWidget(page, 'Rich Text');
  // The new editor takes focus once it has mounted: typing before that loses the first keys.
  await page.getByRole('textbox', { name: 'Body: Rich Text 2' }).click();
  await page.keyboard.type('Second widget first');
  await page.getByRole('button', { name: 'Move Rich Text 2 up' }).click();
  assert.match((await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).textContent()) ?? '', /Second widget first/);
  assert.match((await page.getByRole('textbox', { name: 'Body: Rich Text 2' }).textContent()) ?? '', /Harbour at dawn/);

  // 3. The author, from the search combobox with the keyboard.
  const search = page.getByRole('combobox', { name: 'Author' });
  await search.fill(authorName);
  await page.getByRole('option', { name: authorName }).waitFor();
  await search.press('ArrowDown');
  await search.press('Enter');
  await page.getByRole('button', { name: `Remove ${authorName}` }).waitFor();

  // 4. Saved: the area's HTML in the new order, and the relationship.
  await saveDraft(page);
  const stored = await draftOf(ctx, article);
  const items = (stored.body as Area).items;
  assert.equal(items.length, 2);
  assert.equal(items[0]!.type, '@cms/rich-text');
  assert.match(items[0]!.content ?? '', /<p>Second widget first<\/p>/);
  assert.match(items[1]!.content ?? '', /<h2>Harbour at dawn<\/h2>/);
  assert.match(items[1]!.content ?? '', /<p>The boats come in <strong>before six<\/strong><\/p>/);
  const related = stored._author as Doc[];
  assert.deepEqual(related.map((doc) => doc.cmsDocId), [author.cmsDocId]);
}

/** The image widget: its image picked by search, a caption, removal of a widget after confirming. */
export async function imageWidget(page: Page, ctx: FlowContext): Promise<void> {
  const imageTitle = `Flow dot ${unique()}`;
  const [article, image] = await Promise.all([newArticle(ctx, `Image flow ${unique()}`), seedImage<Doc>(ctx, imageTitle)]);
  await openEditor(page, ctx, article);

  await addWidget(page, 'Rich Text');
  await page.keyboard.type('To be removed');
  await addWidget(page, 'Image');
  const widget = page.getByRole('region', { name: 'Image 2' });
  const search = widget.getByRole('combobox', { name: 'Image' });
  await search.fill(imageTitle);
  await page.getByRole('option', { name: imageTitle }).click();
  await widget.getByRole('button', { name: `Remove ${imageTitle}` }).waitFor();
  await widget.getByLabel('Caption').fill('A very small dot');

  await page.getByRole('button', { name: 'Remove Rich Text 1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('region', { name: 'Image 1' }).waitFor();

  await saveDraft(page);
  const items = ((await draftOf(ctx, article)).body as Area).items;
  assert.equal(items.length, 1);
  assert.equal(items[0]!.type, '@cms/image');
  assert.equal(items[0]!.caption, 'A very small dot');
  assert.deepEqual(items[0]!._image?.map((doc) => doc.cmsDocId), [image.cmsDocId]);
}

/** The toolbar with the keyboard alone: one tab stop, arrow keys, and the link dialog. */
export async function toolbarKeyboardAndLink(page: Page, ctx: FlowContext): Promise<void> {
  const article = await newArticle(ctx, `Link flow ${unique()}`);
  await openEditor(page, ctx, article);
  await addWidget(page, 'Rich Text');
  await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).click();
  await page.keyboard.type('Read the guide');
  // Select-all is the editor's own command (a browser selection change reaches it asynchronously).
  await page.keyboard.press('Control+A');

  // From the editable text, Shift+Tab reaches the toolbar's one tab stop (its first control).
  await page.keyboard.press('Shift+Tab');
  const toolbar = page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' });
  await assertFocused(toolbar.getByRole('combobox', { name: 'Text style' }));
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  const link = toolbar.getByRole('button', { name: 'Link' });
  while (!(await isFocused(link))) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');

  const dialog = page.getByRole('dialog', { name: 'Link' });
  await dialog.getByLabel('Address (URL)').fill('javascript:alert(1)');
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await dialog.getByRole('alert').waitFor();
  await dialog.getByLabel('Address (URL)').fill('https://example.com/guide');
  await dialog.getByLabel('Open in a new tab').check();
  await dialog.getByLabel('Address (URL)').press('Enter');
  await dialog.waitFor({ state: 'detached' });
  await toolbarButton(page, 'Body: Rich Text 1', 'Link', true).waitFor();

  await saveDraft(page);
  const content = ((await draftOf(ctx, article)).body as Area).items[0]?.content ?? '';
  const anchor = /<a ([^>]*)>Read the guide<\/a>/.exec(content);
  assert.ok(anchor, `no link in ${content}`);
  assert.match(anchor[1]!, /href="https:\/\/example\.com\/guide"/);
  assert.match(anchor[1]!, /target="_blank"/);
  assert.match(anchor[1]!, /rel="noopener noreferrer"/);
}

function toolbarButton(page: Page, editorName: string, name: string, pressed: boolean) {
  return page.getByRole('toolbar', { name: `${editorName} formatting` }).getByRole('button', { name, pressed });
}

async function isFocused(locator: ReturnType<Page['getByRole']>): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement);
}

async function assertFocused(locator: ReturnType<Page['getByRole']>): Promise<void> {
  assert.ok(await isFocused(locator), 'expected the control to have focus');
}
