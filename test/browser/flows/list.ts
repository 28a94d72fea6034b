import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, eventually, uniqueWord, type FlowContext } from '../flow-support.js';

/**
 * End-to-end flows of the list screen (admin/src/screens/ListScreen.vue). Each starts from a
 * signed-in admin page, seeds its own documents through the API under a unique word, and finds
 * them by searching for that word, so the flows do not depend on each other or on other content.
 */
type Doc = { _id: string; cmsDocId: string; title: string; archived: boolean; lastPublishedAt?: string | null; modified?: boolean };

function seed(ctx: FlowContext, type: string, body: Record<string, unknown>, published: boolean): Promise<Doc> {
  return api<Doc>(ctx, `/${type}?cmsLocale=en&cmsMode=${published ? 'published' : 'draft'}`, { method: 'POST', body });
}

function draftOf(ctx: FlowContext, type: string, doc: Doc): Promise<Doc> {
  return api<Doc>(ctx, `/${type}/${doc.cmsDocId}?cmsLocale=en&cmsMode=draft&archived=any`);
}

async function openList(page: Page, ctx: FlowContext, type: string, query = ''): Promise<void> {
  await page.goto(`${ctx.baseUrl}/admin/types/${type}${query}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
}

async function search(page: Page, word: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search' }).fill(word);
  await eventually(() => assert.match(new URL(page.url()).searchParams.get('q') ?? '', new RegExp(word)));
}

function row(page: Page, title: string) {
  return page.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
}

async function titlesShown(page: Page, word: string): Promise<string[]> {
  const titles = await page.getByRole('link', { name: new RegExp(word) }).allTextContents();
  return titles.map((title) => title.trim());
}

/** Status badges, locale and last change of three documents; a choice filter; Back; column sort. */
export async function listShowsStatusAndFilters(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('lstatus');
  const [alpha, beta, gamma] = [`${word} Alpha`, `${word} Beta`, `${word} Gamma`];
  await seed(ctx, 'article', { title: alpha, tags: ['tech'] }, true);
  await seed(ctx, 'article', { title: beta, tags: ['news'] }, false);
  const modified = await seed(ctx, 'article', { title: gamma, tags: ['tech'] }, true);
  await api(ctx, `/article/${modified.cmsDocId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { category: 'changed' } });

  await openList(page, ctx, 'article');
  await search(page, word);
  await eventually(async () => assert.deepEqual((await titlesShown(page, word)).sort(), [alpha, beta, gamma]));
  assert.match(await row(page, alpha).innerText(), /Published/);
  assert.match(await row(page, beta).innerText(), /Draft only/);
  assert.match(await row(page, gamma).innerText(), /Modified since published/);
  assert.match(await row(page, alpha).innerText(), /\ben\b/, 'the locale column');
  assert.match(await row(page, alpha).innerText(), /by \S/, 'who made the last change');

  // A choice filter: its options come from the same list answer (choices=tags).
  await page.locator('summary', { hasText: 'Tags' }).click();
  await page.getByRole('checkbox', { name: 'Tech', exact: true }).check();
  await eventually(async () => assert.deepEqual((await titlesShown(page, word)).sort(), [alpha, gamma]));
  assert.deepEqual(new URL(page.url()).searchParams.getAll('f.tags'), ['tech']);

  // The state is in the URL: Back undoes the filter.
  await page.goBack();
  await eventually(async () => assert.deepEqual((await titlesShown(page, word)).sort(), [alpha, beta, gamma]));
  assert.equal(await page.getByRole('checkbox', { name: 'Tech', exact: true }).isChecked(), false);
  await page.locator('summary', { hasText: 'Tags' }).click();

  // Column sort, announced by aria-sort on the header cell.
  await page.getByRole('button', { name: 'Title' }).click();
  await eventually(async () => assert.deepEqual(await titlesShown(page, word), [alpha, beta, gamma]));
  assert.equal(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort'), 'ascending');
  await page.getByRole('button', { name: 'Title' }).click();
  await eventually(async () => assert.deepEqual(await titlesShown(page, word), [gamma, beta, alpha]));
  assert.equal(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort'), 'descending');
  assert.equal(new URL(page.url()).searchParams.get('sort'), '-title');
}

/** Select all, Archive (with a confirm), then the archived view, Restore. */
export async function bulkArchiveAndRestore(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('larchive');
  const docs = [
    await seed(ctx, 'article', { title: `${word} Published` }, true),
    await seed(ctx, 'article', { title: `${word} Draft` }, false),
  ];

  await openList(page, ctx, 'article');
  await search(page, word);
  await row(page, docs[0]!.title).waitFor();
  await row(page, docs[1]!.title).waitFor();
  await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  const bulk = page.getByRole('group', { name: 'Bulk actions' });
  await bulk.getByRole('button', { name: 'Archive' }).click();
  const dialog = page.getByRole('dialog', { name: 'Archive 2 articles?' });
  await dialog.getByRole('button', { name: 'Archive' }).click();
  await page.getByText('Archived 2 articles.').waitFor();
  await page.getByText(/No articles match/).waitFor();
  for (const doc of docs) assert.equal((await draftOf(ctx, 'article', doc)).archived, true, `${doc.title} archived`);

  await page.getByRole('button', { name: 'Archived', exact: true }).click();
  assert.equal(new URL(page.url()).searchParams.get('archived'), '1');
  assert.equal(await page.getByRole('button', { name: 'Archived', exact: true }).getAttribute('aria-pressed'), 'true');
  for (const doc of docs) await page.getByRole('checkbox', { name: `Select ${doc.title}` }).check();
  assert.equal(await bulk.getByRole('button', { name: 'Archive' }).count(), 0, 'no Archive in the archived view');
  await bulk.getByRole('button', { name: 'Restore' }).click();
  await page.getByText('Restored 2 articles.').waitFor();
  await page.getByText(/No archived articles|No articles match/).waitFor();
  for (const doc of docs) assert.equal((await draftOf(ctx, 'article', doc)).archived, false, `${doc.title} restored`);

  await page.getByRole('button', { name: 'Live', exact: true }).click();
  await row(page, docs[0]!.title).waitFor();
}

/** Publish two drafts at once; their badges turn to Published after one reload. */
export async function bulkPublish(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('lpublish');
  const docs = [await seed(ctx, 'article', { title: `${word} One` }, false), await seed(ctx, 'article', { title: `${word} Two` }, false)];

  await openList(page, ctx, 'article');
  await search(page, word);
  for (const doc of docs) {
    await row(page, doc.title).waitFor();
    assert.match(await row(page, doc.title).innerText(), /Draft only/);
    await page.getByRole('checkbox', { name: `Select ${doc.title}` }).check();
  }
  await page.getByRole('group', { name: 'Bulk actions' }).getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByText('Published 2 articles.').waitFor();
  for (const doc of docs) {
    await eventually(async () => assert.match(await row(page, doc.title).innerText(), /Published/));
    assert.ok((await draftOf(ctx, 'article', doc)).lastPublishedAt, `${doc.title} published`);
  }
}

/** A date range filter (inclusive from/to) on events. */
export async function dateRangeFilter(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('ldates');
  for (const [day, name] of [['2031-01-10', 'Early'], ['2031-01-20', 'Middle'], ['2031-02-05', 'Late']] as const) {
    await seed(ctx, 'event', { title: `${word} ${name}`, startDate: day }, false);
  }
  await openList(page, ctx, 'event');
  await search(page, word);
  await eventually(async () => assert.equal((await titlesShown(page, word)).length, 3));
  await page.getByLabel('Start Date from').fill('2031-01-20');
  await eventually(async () => assert.deepEqual((await titlesShown(page, word)).sort(), [`${word} Late`, `${word} Middle`]));
  await page.getByLabel('Start Date to').fill('2031-01-20');
  await eventually(async () => assert.deepEqual(await titlesShown(page, word), [`${word} Middle`]));
  const params = new URL(page.url()).searchParams;
  assert.equal(params.get('f.startDate.from'), '2031-01-20');
  assert.equal(params.get('f.startDate.to'), '2031-01-20');
}

/**
 * Opening a list costs at most two API requests: one from the navigation (the shell already holds
 * the schema), and at most two beyond the shell's own whoami and schema on a fresh page load.
 */
export async function listOpensWithAtMostTwoApiRequests(page: Page, ctx: FlowContext): Promise<void> {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.includes('/api/')) seen.push(`${request.method()} ${request.url()}`);
  });

  await page.goto(`${ctx.baseUrl}/admin/`);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Articles' }).waitFor();
  seen.length = 0;
  await nav.getByRole('link', { name: 'Articles' }).click();
  await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();
  await page.getByRole('table').or(page.getByText(/No articles/)).first().waitFor();
  await page.waitForTimeout(500);
  assert.ok(seen.length >= 1 && seen.length <= 2, `navigating to the list: ${seen.length} API requests\n${seen.join('\n')}`);
  assert.ok(seen.some((url) => /choices=/.test(url)), 'the list request carries the filter choices');
  // English has no fallback chain here: the list asks for its own versions, not along a chain.
  assert.ok(seen.every((url) => !/[?&]fallback=/.test(url)), `no fallback without a chain\n${seen.join('\n')}`);

  seen.length = 0;
  await page.goto(`${ctx.baseUrl}/admin/types/article?q=nothing`);
  await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();
  await page.getByText(/No articles match/).or(page.getByRole('table')).first().waitFor();
  await page.waitForTimeout(500);
  const listOwn = seen.filter((url) => !/\/@cms\/(schema|login\/whoami|preferences)/.test(url));
  assert.ok(listOwn.length <= 2, `a fresh list page: ${listOwn.length} API requests besides the shell's\n${seen.join('\n')}`);
}

/** The shell's locale switcher reloads the list in that locale; title links carry the locale. */
export async function localeSwitchReloadsList(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('llocale');
  const doc = await seed(ctx, 'article', { title: `${word} English only` }, false);

  await openList(page, ctx, 'article');
  await search(page, word);
  const link = page.getByRole('link', { name: doc.title, exact: true });
  await link.waitFor();
  assert.match((await link.getAttribute('href')) ?? '', new RegExp(`/admin/types/article/${doc.cmsDocId}\\?locale=en$`));
  assert.match(await row(page, doc.title).innerText(), /\ben\b/);

  await page.getByRole('combobox', { name: /^Locale/ }).selectOption('es');
  await page.getByText(/No articles match/).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('locale'), 'es');
  assert.equal(new URL(page.url()).searchParams.get('q'), word, 'the search survives the locale switch');

  await page.getByRole('combobox', { name: /^Locale/ }).selectOption('en');
  await link.waitFor();
}

/** Typing a search sends one list request after the pause, not one per key. */
export async function searchTypingIsDebounced(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('ldebounce');
  await seed(ctx, 'article', { title: `${word} Found` }, false);
  await openList(page, ctx, 'article');
  await page.getByRole('table').or(page.getByText(/No articles/)).first().waitFor();

  const listRequests: string[] = [];
  page.on('request', (request) => {
    if (/\/api\/v1\/article\?/.test(request.url())) listRequests.push(request.url());
  });
  await page.getByRole('searchbox', { name: 'Search' }).pressSequentially(word, { delay: 20 });
  await page.getByRole('link', { name: `${word} Found` }).waitFor();
  await page.waitForTimeout(400);
  assert.equal(listRequests.length, 1, `one request for ${word.length} keys:\n${listRequests.join('\n')}`);
  assert.match(listRequests[0]!, new RegExp(`autocomplete=${word}`));
}

/** Page links and the page size live in the URL too. */
export async function paginationAndPageSize(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('lpages');
  await Promise.all(Array.from({ length: 12 }, (_, index) => seed(ctx, 'article', { title: `${word} ${index + 1}` }, false)));

  await openList(page, ctx, 'article', '?perPage=10');
  await search(page, word);
  await eventually(async () => assert.equal((await titlesShown(page, word)).length, 10));
  const pagination = page.getByRole('navigation', { name: 'Pagination' });
  assert.equal(await pagination.getByRole('link', { name: 'Page 1' }).getAttribute('aria-current'), 'page');
  await pagination.getByRole('link', { name: 'Next' }).click();
  await eventually(async () => assert.equal((await titlesShown(page, word)).length, 2));
  assert.equal(new URL(page.url()).searchParams.get('page'), '2');

  await page.getByLabel('Per page').selectOption('25');
  await eventually(async () => assert.equal((await titlesShown(page, word)).length, 12));
  assert.equal(new URL(page.url()).searchParams.get('page'), null, 'a new page size starts at page 1');
  assert.equal(await pagination.count(), 0, 'one page needs no pagination');
}
