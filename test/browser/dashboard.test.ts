import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import { api, eventually } from './flow-support.js';

/*
 * The home screen's dashboard (issue 35, admin/src/dashboard/HomeDashboard.vue): a draft the
 * signed-in user saves shows under My drafts, a scheduled publish under Scheduled publishing
 * with its time in the admin's language, each a link to its editor; no serious accessibility
 * violation in either theme.
 */

type Doc = { cmsDocId: string; title: string };

/** Picks a theme in the top bar and waits for the server to keep it. */
async function chooseTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  const saved = page.waitForResponse((response) => response.url().endsWith('/api/v1/@cms/preferences') && response.request().method() === 'PATCH');
  await page.getByLabel('Theme').selectOption(theme);
  assert.equal((await saved).status(), 200);
}

describe('admin: the dashboard on the home screen', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('dora', 'Dora Dashboard');

  it('shows my new draft and a scheduled publish, each a link to its editor, in both themes', async () => {
    const { page, ctx } = suite;
    // A draft saved in the editor: Dora's own.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' }).click();
    await page.getByRole('link', { name: 'New Article' }).click();
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Harbour lights');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved').first().waitFor();
    // Another draft, scheduled to be published in two hours.
    const planned = await api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: 'Tide tables' } });
    const at = new Date(Date.now() + 2 * 3_600_000).toISOString();
    await api(ctx, `/article/${planned.cmsDocId}:en:draft/schedule`, { method: 'POST', body: { publishAt: at } });

    await page.goto(`${ctx.baseUrl}/admin/`);
    const mine = page.getByRole('region', { name: 'My drafts' });
    await mine.getByRole('link', { name: 'Harbour lights' }).waitFor();
    assert.equal(await mine.getByRole('link', { name: 'Tide tables' }).count(), 0, 'saved by the API key, not by Dora');
    assert.match(await mine.getByRole('listitem').first().innerText(), /^Harbour lights · Article · .+\d [AP]M by Dora Dashboard$/);
    const scheduled = page.getByRole('region', { name: 'Scheduled publishing' });
    const item = scheduled.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Tide tables' }) });
    // The time as the admin's language writes it (vue-i18n's `long`: medium date, short time).
    const shown = await page.evaluate((iso) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)), at);
    await eventually(async () => assert.match(await item.innerText(), new RegExp(`Article · publishes\\s+${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)));
    assert.equal(await item.locator('time').getAttribute('datetime'), at);
    await page.getByRole('region', { name: 'Recent changes' }).getByRole('link', { name: 'Harbour lights' }).waitFor();
    const all = scheduled.getByRole('link', { name: 'All scheduled Articles' });
    assert.equal(new URL((await all.getAttribute('href'))!, ctx.baseUrl).searchParams.get('f.scheduled'), 'pending');

    for (const theme of ['light', 'dark'] as const) {
      await chooseTheme(page, theme);
      await expectNoSeriousA11yViolations(page);
    }
    await chooseTheme(page, 'light');
    await screenshot(page, 'admin-dashboard');

    await scheduled.getByRole('link', { name: 'Tide tables' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tide tables' }).waitFor();
    assert.match(new URL(page.url()).pathname, new RegExp(`/admin/types/article/${planned.cmsDocId}$`));
    await page.goBack();
    await mine.getByRole('link', { name: 'Harbour lights' }).click();
    await page.getByRole('heading', { level: 1, name: 'Harbour lights' }).waitFor();
  });
});
