import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkipReason, openPage, screenshot } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite } from '../helpers/admin-app.js';

/** The admin's locales with a chain: Spanish falls back to English (issue 25, part 4). */
function fallbackAdminConfig(): Record<string, unknown> {
  return { ...adminTestConfig(), locales: { en: { label: 'English' }, es: { label: 'Español', fallback: 'en' } } };
}

describe('admin: preview links that expire, and documents missing in a locale', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('previewer', 'Pat Previewer', fallbackAdminConfig());

  it('creates a preview link with a lifetime that a fresh browser opens, then revokes it: the fresh browser sees nothing', async () => {
    const { page, site, browser } = suite;
    const created = await site.t.request('POST', '/api/v1/article', { body: { title: 'Preview Published' } });
    assert.equal(created.status, 200, created.text);
    const draftId = `${created.body.cmsDocId}:en:draft`;
    assert.equal((await site.t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: 'Preview Draft Only' } })).status, 200);

    await page.goto(`/admin/types/article/${created.body.cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByText('Preview links', { exact: false }).first().click();
    await page.getByText('No live preview link.').waitFor();
    await page.getByRole('combobox', { name: 'Lifetime' }).selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Create preview link' }).click();
    const urlBox = page.getByRole('textbox', { name: /New preview link/ });
    await urlBox.waitFor();
    const url = await urlBox.inputValue();
    assert.match(url, /cmsShareKey=/);
    const revoke = page.getByRole('button', { name: /^Revoke preview link: Expires / });
    await revoke.waitFor();
    await screenshot(page, 'admin-editor-preview-link');
    // The expiry shown is about an hour away.
    const expiresAt = (await site.t.request('GET', `/api/v1/article/${draftId}/share`)).body.results[0].expiresAt as string;
    const lifetime = Date.parse(expiresAt) - Date.now();
    assert.ok(lifetime > 3500_000 && lifetime <= 3600_000, `lifetime ${lifetime}`);

    // A fresh context: no session, no cookie.
    const fresh = await openPage(browser, site.baseUrl);
    try {
      const opened = await fresh.goto(url);
      assert.equal(opened?.status(), 200);
      assert.match(await fresh.locator('body').innerText(), /Preview Draft Only/);

      await revoke.click();
      await page.getByText('No live preview link.').waitFor();
      const after = await fresh.goto(url);
      assert.equal(after?.status(), 404);
      assert.doesNotMatch(await fresh.locator('body').innerText(), /Preview Draft Only/);
    } finally {
      await fresh.context().close();
    }

    // A note has no pages (no `pagePath`): the panel says why there is nothing to preview.
    const note = await site.t.request('POST', '/api/v1/note', { body: { title: 'Preview Nothing' } });
    assert.equal(note.status, 200, note.text);
    await page.goto(`/admin/types/note/${note.body.cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByText('Preview links', { exact: false }).first().click();
    await page.getByText('This type has no pages on the site', { exact: false }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create preview link' }).count(), 0);
  });

  it('marks the documents missing in the current locale, shown from the fallback locale, and keeps them out of bulk actions', async () => {
    const { page, site } = suite;
    const english = await site.t.request('POST', '/api/v1/article', { body: { title: 'Fallback Only English' } });
    const both = await site.t.request('POST', '/api/v1/article', { body: { title: 'Fallback Both' } });
    assert.equal((await site.t.request('POST', `/api/v1/article/${both.body.cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' } })).status, 200);
    assert.equal((await site.t.request('PATCH', `/api/v1/article/${both.body.cmsDocId}:es:draft`, { body: { title: 'Fallback Ambos' } })).status, 200);

    const listed = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/v1/article');
    await page.goto('/admin/types/article?locale=es&q=Fallback');
    // Spanish falls back to English: the list asks along the chain.
    assert.equal(new URL((await listed).url()).searchParams.get('fallback'), 'true');
    const row = (title: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
    await row(english.body.title).waitFor();
    assert.match(await row(english.body.title).innerText(), /Missing in es/);
    assert.equal((await row(english.body.title).locator('td.locale').innerText()).trim(), 'en', 'the locale it is shown from');
    assert.equal(await row(english.body.title).getByRole('checkbox').isDisabled(), true);
    await row('Fallback Ambos').waitFor();
    assert.equal((await row('Fallback Ambos').locator('td.locale').innerText()).trim(), 'es');
    assert.doesNotMatch(await row('Fallback Ambos').innerText(), /Missing in/);
    await screenshot(page, 'admin-list-fallback');
    // Opening a missing one offers to localize it, as before.
    await page.getByRole('link', { name: english.body.title, exact: true }).click();
    await page.getByRole('heading', { name: /Not yet in Español/ }).waitFor();
  });
});
