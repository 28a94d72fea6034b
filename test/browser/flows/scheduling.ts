import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, eventually, uniqueWord, type FlowContext } from '../flow-support.js';
import { screenshot } from '../../helpers/browser.js';

/**
 * Scheduled publishing in the admin (admin/src/editor/SchedulePanel.vue, the list's badge and
 * filter): a publish scheduled from the editor a few seconds ahead shows as "Scheduled" in the
 * list and under its filter, then runs: the list shows the document published.
 */
type Doc = { _id: string; cmsDocId: string; title: string };

function row(page: Page, title: string) {
  return page.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
}

/** The `datetime-local` value of a moment `ms` from now, in the browser's own time zone. */
function localInput(page: Page, ms: number): Promise<string> {
  return page.evaluate((ahead) => {
    const at = new Date(Date.now() + ahead);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  }, ms);
}

export async function scheduleFromEditorThenPublished(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('sched');
  const title = `${word} Launch`;
  const doc = await api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title } });

  await page.goto(`${ctx.baseUrl}/admin/types/article/${doc.cmsDocId}?locale=en`);
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.getByText('Schedule…').click();
  // The inputs are read in the browser's time zone, and say which.
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const publishAt = page.getByLabel('Publish at', { exact: true });
  assert.equal(await publishAt.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent), `Times in ${zone}`);
  await publishAt.fill(await localInput(page, 6_000));
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByText(/Publishes/).waitFor();
  assert.ok((await page.locator('.schedules li').first().innerText()).includes(`(${zone})`), 'the scheduled time names its zone');
  await screenshot(page, 'admin-editor-scheduled');
  assert.ok(await page.getByRole('button', { name: 'Cancel scheduled publish' }).isVisible());

  // The list shows it scheduled, under the filter too.
  await page.goto(`${ctx.baseUrl}/admin/types/article?q=${word}`);
  await eventually(async () => assert.match(await row(page, title).innerText(), /Scheduled/));
  assert.match(await row(page, title).innerText(), /Draft only/);
  assert.match((await row(page, title).locator('.badge.schedule').getAttribute('title')) ?? '', new RegExp(`^Publishes .* \\(${zone}\\)$`), 'the badge names the zone');
  await page.getByLabel('Scheduled').selectOption('true');
  await eventually(async () => assert.equal(new URL(page.url()).searchParams.get('f.scheduled'), 'true'));
  await eventually(async () => assert.match(await row(page, title).innerText(), /Scheduled/));
  await screenshot(page, 'admin-list-scheduled');
  await page.getByLabel('Scheduled').selectOption('');

  // At its time the server publishes it: the list, opened again, shows it published.
  await eventually(async () => {
    await page.goto(`${ctx.baseUrl}/admin/types/article?q=${word}`);
    const text = await row(page, title).innerText();
    assert.match(text, /Published/);
    assert.doesNotMatch(text, /Scheduled/);
  }, 20_000);
}

/** A schedule the server refused at its time shows "Schedule failed" in the list and the reason in the editor. */
export async function failedScheduleIsShown(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('schedfail');
  const title = `${word} Never live`;
  const doc = await api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title } });
  // Unpublishing what is not published fails at the time.
  await api(ctx, `/article/${doc.cmsDocId}:en:draft/schedule`, { method: 'POST', body: { unpublishAt: new Date(Date.now() + 500).toISOString() } });
  await eventually(async () => {
    await page.goto(`${ctx.baseUrl}/admin/types/article?q=${word}`);
    assert.match(await row(page, title).innerText(), /Schedule failed/);
  }, 15_000);
  await page.goto(`${ctx.baseUrl}/admin/types/article/${doc.cmsDocId}?locale=en`);
  await page.getByText('The document was not published at the time').waitFor();
  await page.getByRole('button', { name: 'Cancel scheduled unpublish' }).click();
  await eventually(async () => assert.equal(await page.getByText('The document was not published at the time').count(), 0));
}
