import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, uniqueWord, type FlowContext } from '../flow-support.js';
import { screenshot } from '../../helpers/browser.js';

/**
 * The audit screen (admin/src/screens/AuditScreen.vue) from a signed-in admin page: it lists the
 * record of a change the flow made, and of the admin's own sign-in, through the filters.
 */
export async function auditListsChanges(page: Page, ctx: FlowContext, username: string): Promise<void> {
  const title = uniqueWord('audited');
  const doc = await api<{ cmsDocId: string }>(ctx, '/article', { method: 'POST', body: { title } });

  // The titles of the page's documents: one list request per type on the page, not one per row.
  const titleRequests: string[] = [];
  const noteRequest = (request: { url(): string }) => {
    if (/\/api\/v1\/[^/?]+\?.*_ids/.test(decodeURIComponent(request.url()))) titleRequests.push(request.url());
  };
  page.on('request', noteRequest);
  await page.goto(`${ctx.baseUrl}/admin/audit`);
  await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
  const table = page.getByRole('table', { name: 'Audit records' });
  const insertRow = table.getByRole('row').filter({ hasText: doc.cmsDocId });
  await insertRow.first().waitFor();
  assert.match(await insertRow.first().innerText(), /document\.insert[\s\S]*article/);
  const link = insertRow.first().getByRole('link', { name: title, exact: true });
  await link.waitFor();
  page.off('request', noteRequest);
  const types = new Set(titleRequests.map((url) => new URL(url).pathname));
  assert.equal(titleRequests.length, types.size, `one request per type: ${titleRequests.join(' ')}`);
  assert.equal(new URL(await link.getAttribute('href') ?? '', ctx.baseUrl).pathname, `/admin/types/article/${doc.cmsDocId}`);
  await screenshot(page, 'admin-audit');

  // Narrowed to the admin's sign-ins: the page's own sign-in is there, the insert (by a key) is not.
  const filters = page.getByRole('search', { name: 'Filter the audit trail' });
  await filters.getByLabel('User').fill(username);
  await filters.getByLabel('Action').selectOption('login');
  await filters.getByRole('button', { name: 'Filter' }).click();
  await table.getByRole('row').filter({ hasText: 'login' }).first().waitFor();
  await insertRow.waitFor({ state: 'detached' });
  const rows = await table.locator('tbody tr').allInnerTexts();
  assert.ok(rows.length >= 1 && rows.every((row) => row.includes(username) && row.includes('login')), rows.join('\n'));

  // The filters live in the URL: a reload shows the same view.
  const query = new URL(page.url()).searchParams;
  assert.equal(query.get('actor'), username);
  assert.equal(query.get('action'), 'login');
  await page.reload();
  await table.getByRole('row').filter({ hasText: 'login' }).first().waitFor();
  assert.equal(await filters.getByLabel('Action').inputValue(), 'login');
  assert.equal(await filters.getByLabel('User').inputValue(), username);
  assert.equal(await insertRow.count(), 0);

  // Cleared: the insert is back, and the URL holds no filter.
  await filters.getByRole('button', { name: 'Clear' }).click();
  await insertRow.first().waitFor();
  assert.equal(new URL(page.url()).search, '');
}
