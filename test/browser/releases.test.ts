import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord } from './flow-support.js';

/**
 * Releases in the admin (admin/src/screens/ReleasesScreen.vue, releases/AddToRelease.vue): a
 * release made on the Releases screen, a draft added to it from the editor, the release
 * published from the screen, its documents' states shown.
 */
describe('admin: releases', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('releaser');

  it('creates a release, adds a draft from the editor, publishes it from the Releases screen', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('rel');
    const title = `${word} Launch`;
    const doc = await api<{ cmsDocId: string }>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title } });

    await page.goto(`${ctx.baseUrl}/admin/releases`);
    await page.getByLabel('New release').fill(`${word} release`);
    await page.getByRole('button', { name: 'Create release' }).click();
    await page.getByRole('heading', { level: 2, name: new RegExp(`${word} release`) }).waitFor();

    await page.goto(`${ctx.baseUrl}/admin/types/article/${doc.cmsDocId}?locale=en`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.getByRole('button', { name: 'Add to release' }).click();
    await page.getByRole('menuitem', { name: `${word} release` }).click();
    await page.getByText(`Added to ${word} release`).waitFor();

    await page.goto(`${ctx.baseUrl}/admin/releases`);
    await page.getByRole('button', { name: `${word} release` }).click();
    const detail = page.getByRole('article', { name: `${word} release` });
    await eventually(async () => assert.match(await detail.locator('tbody').innerText(), /Draft modified/));
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('Every document can be published.').waitFor();
    await page.getByRole('button', { name: 'Publish release' }).click();
    await eventually(async () => assert.match(await detail.locator('tbody').innerText(), /Published/));
    assert.match(await detail.getByRole('heading', { level: 2 }).innerText(), /Published/);
    const published = await api<{ title: string }>(ctx, `/article/${doc.cmsDocId}:en:published`);
    assert.equal(published.title, title);
  });
});
