import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminPassword, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord } from './flow-support.js';

/**
 * Two editors on one article, each in a browser context of their own (issue 22, point 3): the
 * advisory lock (the second reads only and sees who edits), the take-over (the first is told and
 * keeps what they typed), the 412 comparison (both changes end up stored), and autosave.
 */
type Doc = { _id: string; cmsDocId: string; title: string; category?: string; [field: string]: unknown };

describe('admin: editing together, nobody loses an edit', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('ada', 'Ada Lovelace');
  let bob: Page;

  before(async () => {
    await suite.site.createUser({ username: 'bob', password: adminPassword, role: 'editor', title: 'Bob Editor' });
    bob = await signedInPage(suite.browser, suite.site.baseUrl, 'bob', adminPassword);
  });

  const ada = () => suite.page;
  const draft = (docId: string) => api<Doc>(suite.ctx, `/article/${docId}?cmsLocale=en&cmsMode=draft`);

  async function newArticle(prefix: string, fields: Record<string, unknown> = {}): Promise<Doc> {
    return api<Doc>(suite.ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { ...fields, title: uniqueWord(prefix) } });
  }

  /** Opens the editor of `docId` and waits until this tab holds the document's lock (or was refused it). */
  async function openLocked(page: Page, docId: string): Promise<void> {
    const lockAnswer = page.waitForResponse((response) =>
      response.request().method() === 'PATCH' && response.url().includes(`/api/v1/article/${docId}`) && /_advisoryLock/.test(response.request().postData() ?? ''),
    );
    await page.goto(`/admin/types/article/${docId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await lockAnswer;
  }

  const title = (page: Page) => page.getByRole('textbox', { name: 'Title', exact: true });
  const category = (page: Page) => page.getByLabel('Category', { exact: true });

  it('shows the second editor who is editing, read only; a take-over tells the first, whose unsaved values stay in the form', async () => {
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>Shared text</p>' }] };
    const article = await newArticle('lock', { body });
    await openLocked(ada(), article.cmsDocId);
    await openLocked(bob, article.cmsDocId);
    await bob.getByText('Ada Lovelace is editing this document').waitFor();
    assert.equal(await title(bob).isDisabled(), true, 'the second editor reads only');
    const richText = (page: Page) => page.locator('.rich-text-content').first();
    assert.equal(await richText(bob).getAttribute('contenteditable'), 'false', 'rich text too reads only');
    assert.equal(await bob.getByRole('button', { name: 'Save draft' }).isDisabled(), true);
    await expectNoSeriousA11yViolations(bob);
    await screenshot(bob, 'admin-editor-locked');

    // What Ada saves shows in Bob's read-only form at his next refresh of the lock (every 5 s).
    await category(ada()).fill('Saved by Ada');
    await ada().getByRole('button', { name: 'Save draft' }).click();
    await ada().getByText('Draft saved').first().waitFor();
    await eventually(async () => assert.equal(await category(bob).inputValue(), 'Saved by Ada'), 12_000);
    assert.equal(await title(bob).isDisabled(), true, 'still read only');

    await title(ada()).fill('Ada typed this');
    await bob.getByRole('button', { name: 'Take over' }).click();
    await eventually(async () => assert.equal(await title(bob).isDisabled(), false), 5000);
    assert.equal(await richText(bob).getAttribute('contenteditable'), 'true');

    // Told at the next refresh of the lock (every 5 s), or at once by the refused autosave.
    await ada().getByText('Bob Editor took over this document', { exact: false }).first().waitFor({ timeout: 12_000 });
    assert.equal(await title(ada()).inputValue(), 'Ada typed this', 'the unsaved value stays in the form');
    assert.equal(await title(ada()).isDisabled(), true);
    assert.equal((await draft(article.cmsDocId)).title, article.title, 'nothing of Ada was saved over Bob');
    await screenshot(ada(), 'admin-editor-taken-over');
    await ada().context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.site.baseUrl });
    await ada().getByRole('button', { name: 'Copy your changes' }).click();
    await ada().getByText('Your changes are on the clipboard').waitFor();
    assert.equal(await ada().evaluate(() => navigator.clipboard.readText()), 'Title: Ada typed this');

    // Bob leaves (the lock is released); Ada takes back control with her value and saves it.
    await bob.goto('/admin/types/article');
    await ada().getByRole('button', { name: 'Take back control' }).click();
    await eventually(async () => assert.equal(await title(ada()).isDisabled(), false), 5000);
    assert.equal(await title(ada()).inputValue(), 'Ada typed this');
    // Its own answer, not the "Draft saved" of the first save: the stream made Bob's follow quick, so that notice may still show.
    const saved = ada().waitForResponse((response) => response.request().method() === 'PUT' && response.url().includes(`/api/v1/article/${article.cmsDocId}`));
    await ada().getByRole('button', { name: 'Save draft' }).click();
    assert.equal((await saved).status(), 200);
    assert.equal((await draft(article.cmsDocId)).title, 'Ada typed this');
    await ada().goto('/admin/types/article');
  });

  it('shows a save based on an older version the server’s change beside the editor’s, and stores both', async () => {
    // It relates to another article: what the read expands of that one (`cacheInvalidatedAt`)
    // moves when anything else relates to it, which is no change to ask about.
    const relatedTo = await newArticle('related');
    const article = await newArticle('conflict', { _related: [{ _id: relatedTo._id }] });
    // Bob opens first; Ada takes over, changes the category, saves and leaves.
    await openLocked(bob, article.cmsDocId);
    await openLocked(ada(), article.cmsDocId);
    await ada().getByRole('button', { name: 'Take over' }).click();
    await eventually(async () => assert.equal(await category(ada()).isDisabled(), false), 5000);
    await category(ada()).fill('News');
    await ada().getByRole('button', { name: 'Save draft' }).click();
    await ada().getByText('Draft saved').first().waitFor();
    await bob.getByRole('button', { name: 'Take back control' }).waitFor({ timeout: 12_000 });
    await ada().goto('/admin/types/article');

    await newArticle('relating', { _related: [{ _id: relatedTo._id }] });

    // Bob, who read the article before Ada's save, takes back control and changes the title.
    await bob.getByRole('button', { name: 'Take back control' }).click();
    await eventually(async () => assert.equal(await title(bob).isDisabled(), false), 5000);
    assert.equal(await category(bob).inputValue(), '', 'Bob still sees the version he read');
    await title(bob).fill('Bob’s title');
    await bob.getByRole('button', { name: 'Save draft' }).click();

    const dialog = bob.getByRole('dialog', { name: 'This document changed while you edited it' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /ada/i, 'the server names who changed it');
    const categoryChoice = dialog.getByRole('group', { name: 'Category' });
    assert.equal(await categoryChoice.locator('[data-side="theirs"]').innerText(), 'News');
    assert.equal(await categoryChoice.locator('[data-side="mine"]').innerText(), '(empty)');
    assert.equal(await categoryChoice.getByRole('radio', { name: /Take theirs/ }).isChecked(), true, 'a field only the server changed takes its value');
    assert.equal(await dialog.getByRole('group', { name: 'Title' }).count(), 0, 'a field only Bob changed is not asked about');
    assert.equal(await dialog.getByRole('group', { name: 'Related' }).count(), 0, 'the related article’s bookkeeping is no change');
    await expectNoSeriousA11yViolations(bob);
    await screenshot(bob, 'admin-editor-conflict');
    await dialog.getByRole('button', { name: 'Save with these choices' }).click();
    await bob.getByText('Draft saved').first().waitFor();

    const stored = await draft(article.cmsDocId);
    assert.equal(stored.title, 'Bob’s title');
    assert.equal(stored.category, 'News');
    assert.deepEqual((stored._related as Doc[]).map((doc) => doc._id), [relatedTo._id]);
    assert.equal(await category(bob).inputValue(), 'News');
    await bob.goto('/admin/types/article');
  });

  it('publishes only the version the editor read: a change made since over the API refuses Publish (412) and shows', async () => {
    const article = await newArticle('stale');
    await openLocked(ada(), article.cmsDocId);
    // Right after a lock refresh (the next is 5 s away, and would show the change by itself).
    await ada().waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes(article.cmsDocId));
    await api(suite.ctx, `/article/${article._id}`, { method: 'PATCH', body: { category: 'Changed over the API' } });
    await ada().getByRole('button', { name: 'Publish', exact: true }).click();
    await ada().getByText('Nothing was done:', { exact: false }).first().waitFor();
    await eventually(async () => assert.equal(await category(ada()).inputValue(), 'Changed over the API'));
    const published = await fetch(`${suite.site.baseUrl}/api/v1/article/${article.cmsDocId}?cmsLocale=en&cmsMode=published`, {
      headers: { Authorization: `ApiKey ${suite.ctx.apiKey}` },
    });
    await published.body?.cancel();
    assert.equal(published.status, 404, 'nothing was published');
    await ada().getByRole('button', { name: 'Publish', exact: true }).click();
    await ada().getByText('Published', { exact: true }).first().waitFor();
    assert.equal((await api<Doc>(suite.ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=published`)).category, 'Changed over the API');
    await ada().goto('/admin/types/article');
  });

  it('autosaves a draft a few seconds after typing stops, and says so in the status line', async () => {
    const article = await newArticle('auto');
    await openLocked(ada(), article.cmsDocId);
    const status = ada().locator('.save-state');
    assert.equal(await status.innerText(), 'Saved');
    await category(ada()).fill('Typed, never saved by hand');
    await eventually(async () => assert.equal(await status.innerText(), 'Unsaved changes'), 2000);
    await eventually(async () => assert.equal(await status.innerText(), 'Saved'), 10_000);
    await ada().reload();
    await ada().getByRole('button', { name: 'Save draft' }).waitFor();
    assert.equal(await category(ada()).inputValue(), 'Typed, never saved by hand');
    assert.equal((await draft(article.cmsDocId)).category, 'Typed, never saved by hand');

    // A change the server refuses is not saved, and the status line says why.
    await title(ada()).fill('');
    await eventually(async () => assert.equal(await status.innerText(), 'Not saved: one field needs attention'), 10_000);
    assert.equal(await title(ada()).getAttribute('aria-invalid'), 'true');
    assert.equal((await draft(article.cmsDocId)).title, article.title);
    await title(ada()).fill('Titled again');
    await eventually(async () => assert.equal(await status.innerText(), 'Saved'), 10_000);
    assert.equal((await draft(article.cmsDocId)).title, 'Titled again');
  });
});
