import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminPassword, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import * as editor from './flows/editor.js';
import * as areas from './flows/areas.js';

describe('admin: the editor, its fields, areas and relationships', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('writer', 'Wendy Writer');

  it('runs the draft workflow of an article: save, publish, discard, undo publish, archive, restore, delete', () => editor.articleWorkflow(suite.page, suite.ctx));
  it('shows a server validation error beside its field', () => editor.eventValidationError(suite.page, suite.ctx));
  it('saves a draft on leaving, and warns before leaving changes that cannot be saved', () => editor.unsavedChangesWarning(suite.page, suite.ctx));
  it('saves with Ctrl+S', () => editor.ctrlSSaves(suite.page, suite.ctx));
  it('localizes a document and the related documents ticked', () => editor.localizeToSpanish(suite.page, suite.ctx));
  it('stays fast typing in a form with a 1,000-item array', () => editor.largeArrayTyping(suite.page, suite.ctx));
  it('adds, removes and reorders array items', () => editor.arrayAddRemove(suite.page, suite.ctx));
  it('shows a contributor no Publish button', () => editor.contributorHasNoPublish(suite.page, suite.ctx));
  it('edits rich text, reorders widgets and picks a relationship', () => areas.richTextReorderAndRelationship(suite.page, suite.ctx));
  it('edits an image widget', () => areas.imageWidget(suite.page, suite.ctx));
  it('drives the rich-text toolbar with the keyboard and adds a link', () => areas.toolbarKeyboardAndLink(suite.page, suite.ctx));
  it('edits a colour as text or with the picker, and shows a spelling the server refuses beside the field', async () => {
    const { page } = suite;
    await page.goto('/admin/types/article/new');
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Colourful');
    const accent = page.getByRole('textbox', { name: 'Accent', exact: true });
    await accent.fill('not a colour');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('must be a color', { exact: false }).waitFor();
    assert.equal(await accent.getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Accent: pick a colour').fill('#336699');
    assert.equal(await accent.inputValue(), '#336699');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/new'));
    const docId = new URL(page.url()).pathname.split('/').pop();
    const saved = await suite.site.t.request('GET', `/api/v1/article/${docId}?cmsMode=draft`);
    assert.equal(saved.body.accent, '#336699');
  });
  it('saves the last keystrokes of rich text when Ctrl+S comes right after them', async () => {
    const { page } = suite;
    const article = await suite.site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Quick save' } });
    await page.goto(`/admin/types/article/${article.body.cmsDocId}`);
    await page.getByRole('button', { name: 'Add content to Body' }).click();
    await page.getByRole('menuitem', { name: 'Rich Text' }).click();
    await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).click();
    // Typed and saved within the rich text's write delay: the save must not miss the end.
    await page.keyboard.type('written just before saving');
    await page.keyboard.press('Control+s');
    await page.getByText('Draft saved').first().waitFor();
    const saved = await suite.site.t.request('GET', `/api/v1/article/${article.body.cmsDocId}?cmsMode=draft`);
    assert.match(saved.body.body.items[0].content, /written just before saving/);
  });
  it('opens an editor without a waterfall: the document and the rich-text code are requested while the editor code loads', async () => {
    const { site, browser } = suite;
    const article = await site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'No waterfall' } });
    const fresh = await signedInPage(browser, site.baseUrl, 'writer', adminPassword);
    await fresh.goto('/admin/types/article');
    await fresh.getByRole('link', { name: 'No waterfall' }).waitFor();
    const seen: string[] = [];
    fresh.on('request', (request) => seen.push(new URL(request.url()).pathname));
    const documentPath = `/api/v1/article/${article.body.cmsDocId}`;
    // Holds the editor's code back until the document and tiptap's chunk have been asked for: a
    // waterfall (code, then data) would never ask, and the editor would not open in time.
    let heldBack = false;
    await fresh.route(/\/admin\/assets\/EditorScreen-[^/]+\.js$/, async (route) => {
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && !(seen.includes(documentPath) && seen.some((path) => /AreaField-[^/]+\.js$/.test(path)))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      heldBack = seen.includes(documentPath) && seen.some((path) => /AreaField-[^/]+\.js$/.test(path));
      await route.continue();
    });
    await fresh.getByRole('link', { name: 'No waterfall' }).click();
    await fresh.getByRole('button', { name: 'Save draft' }).waitFor();
    assert.equal(heldBack, true, `requests while the editor code was held back: ${seen.join(', ')}`);
    assert.equal(await fresh.getByRole('textbox', { name: 'Title', exact: true }).inputValue(), 'No waterfall');
    await fresh.context().close();
  });
  it('fetches the rich-text editor\'s code only when an editor with rich text opens', async () => {
    const { site, browser } = suite;
    const note = await site.t.request('POST', '/api/v1/note?cmsMode=draft', { body: { title: 'Plain words' } });
    const article = await site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Rich words' } });
    const fresh = await signedInPage(browser, site.baseUrl, 'writer', adminPassword);
    // Every script the page fetches, from the first load on, each read for ProseMirror's class
    // (test/unit/admin-budget.test.ts: only the rich-text chunk holds it).
    const scripts: Promise<{ path: string; richText: boolean }>[] = [];
    const seen = (page: typeof fresh) => page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (/^\/admin\/assets\/.+\.js$/.test(path)) scripts.push(response.text().then((code) => ({ path, richText: code.includes('ProseMirror') })));
    });
    seen(fresh);
    await fresh.reload();
    await fresh.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    const richTextFetched = async () => (await Promise.all(scripts)).filter((script) => script.richText).map((script) => script.path);
    for (const [url, shown] of [
      ['/admin/types/article', fresh.getByRole('link', { name: 'Rich words' })],
      ['/admin/media', fresh.getByRole('heading', { name: 'Media', level: 1 })],
      [`/admin/types/note/${note.body.cmsDocId}`, fresh.getByRole('textbox', { name: 'Text', exact: true })],
    ] as const) {
      await fresh.goto(url);
      await shown.waitFor();
    }
    assert.ok((await Promise.all(scripts)).length > 3, 'the screens\' scripts were seen');
    assert.deepEqual(await richTextFetched(), [], 'home, a list, media and an editor without rich text fetch no rich-text code');
    await fresh.goto(`/admin/types/article/${article.body.cmsDocId}`);
    await fresh.getByRole('button', { name: 'Add content to Body' }).waitFor();
    const fetched = await richTextFetched();
    assert.equal(fetched.length, 1, `the rich-text chunk, once: ${fetched.join(', ')}`);
    await fresh.context().close();
  });
  it('has no serious accessibility violation in the editor, at 1280 and at 360 px wide', async () => {
    const { page } = suite;
    await page.goto('/admin/types/article/new');
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('button', { name: 'Add content to Body' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-editor-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
});
