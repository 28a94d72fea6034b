import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkipReason } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite, type SignedInSuite } from '../helpers/admin-app.js';
import { eventually, seedImage } from './flow-support.js';

/**
 * Issue 22, point 4: the editor never destroys what it opens. Rich text holding every item an
 * area allows is posted over the API, opened in the admin and left untouched (never "unsaved",
 * leaving asks nothing, Save draft stores it byte for byte), then edited at its start and saved:
 * the rest comes back exactly as the server kept it, so the editor reads and writes every
 * structure of the server's allow-list (src/content/fields/rich-text.ts) without loss.
 */

/** Every toolbar, insert and style item the server knows, on one area of the `sampler` type. */
const everyItem = {
  toolbar: [
    ...['styles', '|', 'bold', 'italic', 'strike', 'underline', 'subscript', 'superscript', 'blockquote', 'codeBlock', '|'],
    ...['alignLeft', 'alignCenter', 'alignRight', 'alignJustify', 'image', 'horizontalRule', 'link', 'anchor'],
    ...['bulletList', 'orderedList', 'color', 'table', 'undo', 'redo'],
  ],
  insert: ['image', 'table', 'horizontalRule'],
  styles: [
    { tag: 'p', label: 'Paragraph' },
    ...[1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, label: `Heading ${level}` })),
    { tag: 'p', label: 'Lead', class: 'lead' },
    { tag: 'h2', label: 'Fancy', class: 'fancy big' },
    { tag: 'pre', label: 'Code' },
    { tag: 'blockquote', label: 'Quote' },
    { tag: 'address', label: 'Address' },
  ],
  imageStyles: [{ value: 'wide', label: 'Wide' }],
};

function roundTripConfig(): Record<string, unknown> {
  const config = adminTestConfig();
  const modules = config.modules as Record<string, unknown>;
  const sampler = {
    extend: '@cms/piece-type',
    options: { label: 'Sampler' },
    fields: { add: { body: { type: 'area', options: { widgets: { '@cms/rich-text': everyItem } } } } },
  };
  return { ...config, modules: { ...modules, sampler } };
}

interface Case {
  readonly name: string;
  /** Rich text after a first paragraph `<p>Start</p>`, in the structures the editor writes. */
  readonly html: (imageSrc: string) => string;
  /** What shows the item in the editor (a CSS selector inside the editable text). */
  readonly shows: string;
}

const table = '<table style="min-width: 50px"><colgroup><col style="min-width: 25px" /><col style="min-width: 25px" /></colgroup>'
  + '<tbody><tr><th colspan="1" rowspan="1"><p>Head</p></th><th colspan="1" rowspan="1"><p>Er</p></th></tr>'
  + '<tr><td colspan="1" rowspan="1"><p>a</p></td><td colspan="2" rowspan="1"><p>b</p></td></tr></tbody></table>';

const cases: readonly Case[] = [
  {
    name: 'marks: bold, italic, strike, underline, subscript, superscript',
    html: () => '<p><strong>bold</strong> <em>italic</em> <s>struck</s> <u>under</u> H<sub>2</sub>O x<sup>2</sup> <strong><em>both</em></strong></p>',
    shows: 'sup',
  },
  { name: 'headings h1 to h6', html: () => '<h1>One</h1><h2>Two</h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six</h6>', shows: 'h6' },
  { name: 'styles with classes', html: () => '<p class="lead">Lead</p><h2 class="fancy big">Fancy</h2>', shows: 'h2.fancy.big' },
  {
    name: 'bulleted, numbered and nested lists',
    html: () => '<ul><li><p>one</p></li><li><p>two</p></li></ul><ol><li><p>three</p><ul><li><p>nested</p></li></ul></li></ol>',
    shows: 'ol ul li',
  },
  { name: 'blockquote', html: () => '<blockquote><p>Quoted</p><p>twice</p></blockquote>', shows: 'blockquote p' },
  { name: 'code block', html: () => '<pre><code>let x = 1 &lt; 2;\n  indented &amp; kept</code></pre>', shows: 'pre code' },
  {
    name: 'links: address, new tab, title, mailto, anchor, permalink, id',
    html: () => '<p><a href="https://example.com/x?a=1&amp;b=2">plain</a> '
      + '<a href="https://example.com" target="_blank" rel="noopener noreferrer">new tab</a> '
      + '<a href="/about" title="About us">titled</a> <a href="mailto:a@example.com">mail</a> <a href="#here">to anchor</a> '
      + '<a href="#cms-permalink-abc123?updateTitle=1">permalink</a> <a href="/there" id="there">with id</a></p>',
    shows: 'a[target="_blank"]',
  },
  { name: 'anchor', html: () => '<p>Go <span id="here">here</span></p>', shows: 'span#here' },
  {
    name: 'alignment',
    html: () => '<p style="text-align:center">c</p><p style="text-align:right">r</p><h2 style="text-align:left">l</h2><p style="text-align:justify">j</p>',
    shows: 'p[style*="justify"]',
  },
  { name: 'colour', html: () => '<p><span style="color:#ff0000">red</span> <span style="color:rgb(0, 128, 0)">green</span></p>', shows: 'span[style]' },
  { name: 'horizontal rule and line break', html: () => '<p>one<br />two</p><hr /><p>after</p>', shows: 'hr' },
  { name: 'table', html: () => table, shows: 'table th' },
  {
    name: "table in the original's wrapper, with its class",
    html: () => `<div class="tableWrapper">${table.replace('<table ', '<table class="cms-rich-text-table" ')}</div>`,
    shows: 'table.cms-rich-text-table td',
  },
  {
    name: 'images as figures: plain, styled, captioned, linked',
    html: (src) => `<figure><img src="${src}" alt="Plain" /></figure><figure class="wide"><img src="${src}" alt="Wide" /></figure>`
      + `<figure><img src="${src}" alt="Captioned" /><figcaption>The caption</figcaption></figure>`
      + `<figure><a href="https://example.com/"><img src="${src}" alt="Linked" /></a></figure>`,
    shows: 'figure a img[alt="Linked"]',
  },
  {
    name: 'images inside text, one of them linked',
    html: (src) => `<p>a <img src="${src}" alt="Mid" /> b <a href="/x"><img src="${src}" alt="Linked" /></a></p>`,
    shows: 'p a img[alt="Linked"]',
  },
  { name: 'text with entities and a no-break space', html: () => '<p>Tom &amp; Jerry &lt;3 "quoted" it\'s a\u00a0b</p>', shows: 'p' },
];

async function storedContent(suite: SignedInSuite, type: string, cmsDocId: string): Promise<string> {
  const stored = await suite.site.t.request('GET', `/api/v1/${type}/${cmsDocId}?cmsMode=draft`);
  assert.equal(stored.status, 200, stored.text);
  return stored.body.body.items[0].content as string;
}

async function postWithRichText(suite: SignedInSuite, type: string, title: string, content: string): Promise<{ cmsDocId: string; kept: string }> {
  const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content }] };
  const created = await suite.site.t.request('POST', `/api/v1/${type}?cmsMode=draft`, { body: { title, body } });
  assert.equal(created.status, 200, created.text);
  return { cmsDocId: created.body.cmsDocId, kept: created.body.body.items[0].content };
}

async function openEditor(page: Page, type: string, cmsDocId: string) {
  await page.goto(`/admin/types/${type}/${cmsDocId}?locale=en`);
  const text = page.getByRole('textbox', { name: 'Body: Rich Text 1' });
  await text.waitFor();
  return text;
}

/** Whether leaving the page would warn (the editor's beforeunload handler checks the form at once). */
function unloadBlocked(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const event = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(event);
    return event.defaultPrevented;
  });
}

/**
 * The editor is clean: no warning on unload, no "Unsaved changes", and leaving asks nothing.
 * After a save, the page takes in the server's answer a moment after the test has seen it.
 */
async function assertCleanAndLeave(page: Page, what: string): Promise<void> {
  await eventually(async () => assert.equal(await unloadBlocked(page), false, `${what}: leaving the page would warn`), 5000);
  assert.equal(await page.getByText('Unsaved changes').count(), 0, `${what}: the status claims unsaved changes`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
  const outcome = await Promise.race([
    page.waitForURL((url) => url.pathname.endsWith('/types/event')).then(() => 'left'),
    page.getByRole('dialog', { name: 'Leave without saving?' }).waitFor().then(() => 'asked'),
  ]);
  assert.equal(outcome, 'left', `${what}: leaving asked "Leave without saving?"`);
}

async function saveDraft(page: Page, type: string): Promise<void> {
  const saved = page.waitForResponse((response) => response.url().includes(`/api/v1/${type}/`) && response.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save draft' }).click();
  const response = await saved;
  assert.ok(response.ok(), `saving answered ${response.status()}`);
}

/** Focuses the rich text and then the title, as a reader looking around would: nothing changes. */
async function lookAround(page: Page, text: Locator): Promise<void> {
  await text.focus();
  await page.getByRole('textbox', { name: 'Title', exact: true }).click();
}

/**
 * Opens the document and leaves it untouched (clean, leaving asks nothing), opens it again and
 * saves it untouched: the server stores exactly what it kept. Answers the rich text, still open.
 */
async function openedAndSavedUntouched(suite: SignedInSuite, type: string, cmsDocId: string, kept: string, shows: string) {
  const { page } = suite;
  let text = await openEditor(page, type, cmsDocId);
  await text.locator(shows).first().waitFor();
  await lookAround(page, text);
  await assertCleanAndLeave(page, 'opened untouched');

  text = await openEditor(page, type, cmsDocId);
  await text.locator(shows).first().waitFor();
  await lookAround(page, text);
  await saveDraft(page, type);
  assert.equal(await storedContent(suite, type, cmsDocId), kept, 'saved untouched');
  await eventually(async () => assert.equal(await unloadBlocked(page), false, 'clean after saving untouched'), 5000);
  return text;
}

/** Types at the very start of the rich text and saves: the rest must come back as it was. */
async function editStartAndSave(suite: SignedInSuite, type: string, cmsDocId: string, text: Locator, expected: string): Promise<void> {
  const { page } = suite;
  await text.focus();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('New ');
  await page.getByRole('textbox', { name: 'Title', exact: true }).click();
  assert.equal(await unloadBlocked(page), true, 'an edit is an unsaved change');
  await saveDraft(page, type);
  assert.equal(await storedContent(suite, type, cmsDocId), expected, 'saved after an edit');
  await assertCleanAndLeave(page, 'saved after an edit');
}

describe('admin: rich text round-trips what the server keeps (issue 22, point 4)', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('rounder', 'Rhoda Rounder', roundTripConfig());
  let imageSrc = '';
  before(async () => {
    const image = await seedImage(suite.ctx, 'Round trip dot');
    imageSrc = `/api/v1/@cms/image/${image.cmsDocId}/src`;
  });

  for (const item of cases) {
    it(`opens, leaves and saves unchanged, then edits without loss: ${item.name}`, async () => {
      const { page } = suite;
      const { cmsDocId, kept } = await postWithRichText(suite, 'sampler', item.name, `<p>Start</p>${item.html(imageSrc)}`);
      const text = await openedAndSavedUntouched(suite, 'sampler', cmsDocId, kept, item.shows);
      await editStartAndSave(suite, 'sampler', cmsDocId, text, kept.replace('<p>Start</p>', '<p>New Start</p>'));
    });
  }

  it('keeps markup it has no tool for, and the spacing between blocks, while that rich text is not edited', async () => {
    const content = '<p>Start</p>\n<address>Harbour Road 1</address>\n<div class="tableWrapper"><p>not a table</p></div>';
    const { cmsDocId, kept } = await postWithRichText(suite, 'sampler', 'Unknown markup', content);
    assert.equal(kept, content, 'the server keeps it');
    await openedAndSavedUntouched(suite, 'sampler', cmsDocId, kept, 'p');
  });

  it("keeps the issue's article: an inline image uploaded through the media API survives opening, saving and editing", async () => {
    const image = await seedImage(suite.ctx, 'Inline picture');
    const content = `<p>Before the picture</p><p><img src="/api/v1/@cms/image/${image.cmsDocId}/src" alt="Inline"></p>`;
    const { cmsDocId, kept } = await postWithRichText(suite, 'article', 'The picture', content);
    assert.equal(kept, content.replace('">', '" />'), 'the server keeps the image');

    const text = await openedAndSavedUntouched(suite, 'article', cmsDocId, kept, `img[alt="Inline"][src="/api/v1/@cms/image/${image.cmsDocId}/src"]`);
    await editStartAndSave(suite, 'article', cmsDocId, text, kept.replace('<p>Before', '<p>New Before'));
  });

  it('claims no unsaved change for an image inserted in the admin, once saved (issue 22, point 5)', async () => {
    const { page } = suite;
    const created = await suite.site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Picture from the admin' } });
    assert.equal(created.status, 200, created.text);
    const { cmsDocId } = created.body;
    await page.goto(`/admin/types/article/${cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Add content to Body' }).click();
    await page.getByRole('menuitem', { name: 'Rich Text' }).click();
    const text = page.getByRole('textbox', { name: 'Body: Rich Text 1' });
    await text.click();
    await page.keyboard.type('A picture:');
    await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).getByRole('button', { name: 'Insert image' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose an image' });
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#1d6fa5' } }).png().toBuffer();
    await picker.getByLabel('Upload files').setInputFiles([{ name: 'inserted.png', mimeType: 'image/png', buffer: png }]);
    await picker.getByRole('list', { name: 'Uploads' }).getByText('Done').waitFor();
    await picker.getByRole('button', { name: 'Choose', exact: true }).click();
    await text.locator('figure img').waitFor();
    await saveDraft(page, 'article');
    const stored = await storedContent(suite, 'article', cmsDocId);
    assert.match(stored, /<figure><img src="\/api\/v1\/@cms\/image\/[^"]+\/src" alt="[^"]*" \/><\/figure>/);
    assert.equal(await unloadBlocked(page), false, 'clean once saved');

    await page.reload();
    await text.locator('figure img').waitFor();
    await lookAround(page, text);
    await saveDraft(page, 'article');
    assert.equal(await storedContent(suite, 'article', cmsDocId), stored, 'saved again unchanged');
    await assertCleanAndLeave(page, 'reopened');
  });
});
