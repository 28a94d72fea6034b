import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminPassword, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord } from './flow-support.js';

/**
 * Issue 34, points 2 and 3, in Chromium: two editors on one document see each other by name,
 * live (presence over the change stream); a list, a read-only form and the home screen follow
 * what others write without a reload.
 */
type Doc = { _id: string; cmsDocId: string; title: string };

describe('admin: presence and live updates', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('ada', 'Ada Lovelace');
  let bob: Page;

  before(async () => {
    await suite.site.createUser({ username: 'bob', password: adminPassword, role: 'editor', title: 'Bob Editor' });
    bob = await signedInPage(suite.browser, suite.site.baseUrl, 'bob', adminPassword);
  });

  const ada = () => suite.page;
  const newArticle = (prefix: string) => api<Doc>(suite.ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: uniqueWord(prefix) } });
  const openEditor = async (page: Page, docId: string) => {
    await page.goto(`/admin/types/article/${docId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
  };
  /** Marks the page's window: a reload or a navigation of the whole page loses the mark. */
  const markWindow = (page: Page) => page.evaluate(() => ((window as unknown as { liveMark: number }).liveMark = 1));
  const stillMarked = async (page: Page) => assert.equal(await page.evaluate(() => (window as unknown as { liveMark?: number }).liveMark), 1, 'no reload');

  it('shows two editors on one document to each other by name within 3 s, in the editor and in the list, and forgets one who left', async () => {
    const article = await newArticle('together');
    await openEditor(ada(), article.cmsDocId);
    const opened = Date.now();
    await openEditor(bob, article.cmsDocId);
    const othersHere = (page: Page) => page.getByRole('list', { name: 'Also on this document' });
    await othersHere(bob).getByText('Ada Lovelace').waitFor({ timeout: 3000 });
    await othersHere(ada()).getByText('Bob Editor').waitFor({ timeout: 3000 });
    assert.ok(Date.now() - opened < 3500, `seen after ${Date.now() - opened} ms`);
    // Ada holds the lock: Bob sees her as editing, she sees him as viewing.
    await othersHere(bob).getByText(/editing since/).waitFor();
    await othersHere(ada()).getByText(/viewing since/).waitFor();
    await expectNoSeriousA11yViolations(bob);
    await screenshot(bob, 'admin-editor-presence');

    // Ada's list shows Bob on the row of the document he has open.
    await ada().goto('/admin/types/article?locale=en');
    const row = ada().getByRole('row').filter({ hasText: article.title });
    await row.getByRole('listitem').filter({ hasText: 'Bob Editor, viewing since' }).waitFor({ timeout: 3000 });
    await screenshot(ada(), 'admin-list-presence');

    // Bob leaves the document: the avatar goes, without waiting for his presence to lapse.
    const left = Date.now();
    await bob.goto('/admin/');
    await eventually(async () => assert.equal(await row.getByRole('listitem').count(), 0), 3000);
    assert.ok(Date.now() - left < 3000);
  });

  it("shows another writer's new document in an open list, and its removal, without a reload", async () => {
    await ada().goto('/admin/types/article?locale=en');
    await ada().getByRole('columnheader', { name: 'Title' }).waitFor();
    await markWindow(ada());
    const article = await newArticle('arrived');
    await ada().getByRole('link', { name: article.title }).waitFor({ timeout: 3000 });
    await api(suite.ctx, `/article/${article._id}`, { method: 'DELETE' });
    await eventually(async () => assert.equal(await ada().getByRole('link', { name: article.title }).count(), 0), 3000);
    await stillMarked(ada());

    // With rows selected the list stays put and says what changed; "Show" reads it again.
    await ada().getByRole('checkbox', { name: /^Select / }).first().check();
    const another = await newArticle('waiting');
    await ada().getByText('1 new change by others').waitFor({ timeout: 3000 });
    assert.equal(await ada().getByRole('link', { name: another.title }).count(), 0);
    await ada().getByRole('button', { name: 'Show' }).click();
    await ada().getByRole('link', { name: another.title }).waitFor();
    await stillMarked(ada());
  });

  it("has a read-only viewer's form follow the lock holder's saves at once, and the home screen list recent changes", async () => {
    const article = await newArticle('followed');
    await openEditor(ada(), article.cmsDocId);
    await openEditor(bob, article.cmsDocId);
    await bob.getByText('Ada Lovelace is editing this document').waitFor();
    const category = (page: Page) => page.getByLabel('Category', { exact: true });
    await category(ada()).fill('Followed live');
    await ada().getByRole('button', { name: 'Save draft' }).click();
    const saved = Date.now();
    await ada().getByText('Draft saved').first().waitFor();
    // The lock's refresh (every 5 s) would get there too: the stream gets there first.
    await eventually(async () => assert.equal(await category(bob).inputValue(), 'Followed live'), 2500);
    assert.ok(Date.now() - saved < 2500, `followed after ${Date.now() - saved} ms`);

    await bob.goto('/admin/');
    const recent = bob.getByRole('region', { name: 'Recent changes' });
    await recent.getByRole('link', { name: article.title }).waitFor();
    await markWindow(bob);
    const later = await newArticle('recent');
    await recent.getByRole('link', { name: later.title }).waitFor({ timeout: 3000 });
    await stillMarked(bob);
  });
});
