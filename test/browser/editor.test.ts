import { describe, it, before, after } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, screenshot } from '../helpers/browser.js';
import { adminApiKey, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import * as editor from './flows/editor.js';
import * as areas from './flows/areas.js';

describe('admin: the editor, its fields, areas and relationships', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  const ctx = () => ({ baseUrl: site.baseUrl, apiKey: adminApiKey });

  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
    await site.createUser({ username: 'writer', password: 'correct horse battery', role: 'admin', title: 'Wendy Writer' });
    page = await signedInPage(browser, site.baseUrl, 'writer', 'correct horse battery');
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('runs the draft workflow of an article: save, publish, discard, undo publish, archive, restore, delete', () => editor.articleWorkflow(page, ctx()));
  it('shows a server validation error beside its field', () => editor.eventValidationError(page, ctx()));
  it('warns before leaving with unsaved changes', () => editor.unsavedChangesWarning(page, ctx()));
  it('saves with Ctrl+S', () => editor.ctrlSSaves(page, ctx()));
  it('localizes a document and the related documents ticked', () => editor.localizeToSpanish(page, ctx()));
  it('stays fast typing in a form with a 1,000-item array', () => editor.largeArrayTyping(page, ctx()));
  it('adds, removes and reorders array items', () => editor.arrayAddRemove(page, ctx()));
  it('shows a contributor no Publish button', () => editor.contributorHasNoPublish(page, ctx()));
  it('edits rich text, reorders widgets and picks a relationship', () => areas.richTextReorderAndRelationship(page, ctx()));
  it('edits an image widget', () => areas.imageWidget(page, ctx()));
  it('drives the rich-text toolbar with the keyboard and adds a link', () => areas.toolbarKeyboardAndLink(page, ctx()));
  it('has no serious accessibility violation in the editor, at 1280 and at 360 px wide', async () => {
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
