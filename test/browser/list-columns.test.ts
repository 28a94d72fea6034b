import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminPassword, adminTestConfig, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord, type FlowContext } from './flow-support.js';

/**
 * The list's configured columns (`options.columns`), their sort, the Columns menu and the sort
 * kept per user on the server (another browser signed in shows them), a filter ticking several
 * values, and the bulk unpublish, delete and "Set a field", each checked against the API. A `product` type of its own, so the other list tests keep their columns.
 */
function productConfig(): Record<string, unknown> {
  const config = adminTestConfig();
  const product = {
    extend: '@cms/piece-type',
    options: { label: 'Product', columns: ['category', 'price', 'featured', 'tags', 'releaseDate', 'updatedAt'] },
    fields: {
      add: {
        category: { type: 'select', choices: [{ label: 'Garden', value: 'garden' }, { label: 'Kitchen', value: 'kitchen' }] },
        price: { type: 'float' },
        featured: { type: 'boolean' },
        tags: { type: 'checkboxes', choices: [{ label: 'Red', value: 'red' }, { label: 'Blue', value: 'blue' }, { label: 'Green', value: 'green' }] },
        releaseDate: { type: 'date' },
      },
    },
  };
  return { ...config, modules: { ...(config.modules as object), product } };
}

type Doc = { _id: string; cmsDocId: string; title: string; featured?: boolean; lastPublishedAt?: string | null };

async function seedProducts(ctx: FlowContext, word: string): Promise<Doc[]> {
  const bodies = [
    { title: `${word} Anvil`, category: 'garden', price: 30, featured: true, tags: ['red'], releaseDate: '2030-05-01' },
    { title: `${word} Bucket`, category: 'kitchen', price: 10, featured: false, tags: ['blue'] },
    { title: `${word} Crate`, category: 'garden', price: 20.5, featured: false, tags: ['red', 'green'] },
    { title: `${word} Drum`, category: 'kitchen', price: 5, featured: false, tags: ['green'] },
  ];
  const docs: Doc[] = [];
  for (const body of bodies) docs.push(await api<Doc>(ctx, '/product?cmsLocale=en&cmsMode=published', { method: 'POST', body }));
  return docs;
}

/** The titles the API lists for a query, in its order (drafts, as the admin reads them). */
async function apiTitles(ctx: FlowContext, query: string): Promise<string[]> {
  const answer = await api<{ results: Doc[] }>(ctx, `/product?cmsLocale=en&cmsMode=draft&${query}`);
  return answer.results.map((doc) => doc.title);
}

async function titlesShown(page: Page, word: string): Promise<string[]> {
  return (await page.getByRole('link', { name: new RegExp(word) }).allTextContents()).map((title) => title.trim());
}

function row(page: Page, title: string) {
  return page.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
}

async function openSearched(page: Page, ctx: FlowContext, word: string, query = ''): Promise<void> {
  await page.goto(`${ctx.baseUrl}/admin/types/product?q=${word}${query}`);
  await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();
}

const headers = (page: Page) => page.getByRole('columnheader').allInnerTexts();

describe('admin: list columns, sorts, filters of several values and more bulk actions', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('columnist', undefined, productConfig);

  it('shows the configured columns formatted by type, sorts by one as the API does, and keeps a hidden column and the sort after a reload', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('lcols');
    const [anvil] = await seedProducts(ctx, word);
    await openSearched(page, ctx, word);
    await eventually(async () => assert.equal((await titlesShown(page, word)).length, 4));
    assert.deepEqual((await headers(page)).map((text) => text.trim()).slice(1), ['Title', 'Status', 'Locale', 'Category', 'Price', 'Featured', 'Tags', 'Release Date', 'Last change']);
    const anvilCells = await row(page, anvil!.title).getByRole('cell').allInnerTexts();
    assert.ok(anvilCells.includes('Garden'), `the select's label: ${anvilCells.join(' | ')}`);
    assert.ok(anvilCells.includes('30') && anvilCells.includes('Yes') && anvilCells.includes('Red'), anvilCells.join(' | '));
    assert.ok(anvilCells.some((cell) => /2030/.test(cell) && !/2030-05-01/.test(cell)), `the date formatted: ${anvilCells.join(' | ')}`);
    const crateCells = await row(page, `${word} Crate`).getByRole('cell').allInnerTexts();
    assert.ok(crateCells.includes('Red, Green') && crateCells.includes('20.5') && crateCells.includes('No'), crateCells.join(' | '));

    // A checkboxes column has no sort button: the schema says the list query cannot sort on it.
    assert.equal(await page.getByRole('columnheader', { name: 'Tags' }).getByRole('button').count(), 0);
    await page.getByRole('button', { name: 'Price' }).click();
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), await apiTitles(ctx, `autocomplete=${word}&sort[price]=1`)));
    assert.deepEqual(await titlesShown(page, word), [`${word} Drum`, `${word} Bucket`, `${word} Crate`, `${word} Anvil`]);
    assert.equal(await page.getByRole('columnheader', { name: 'Price' }).getAttribute('aria-sort'), 'ascending');
    await page.getByRole('button', { name: 'Price' }).click();
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), await apiTitles(ctx, `autocomplete=${word}&sort[price]=-1`)));
    assert.equal(await page.getByRole('columnheader', { name: 'Price' }).getAttribute('aria-sort'), 'descending');
    assert.equal(new URL(page.url()).searchParams.get('sort'), '-price');

    // The Columns menu, by keyboard: hide Featured.
    const menu = page.locator('summary', { hasText: 'Columns' });
    await menu.focus();
    await page.keyboard.press('Enter');
    const featuredBox = page.getByRole('group', { name: 'Shown columns' }).getByRole('checkbox', { name: 'Featured' });
    await featuredBox.focus();
    await page.keyboard.press('Space');
    await eventually(async () => assert.ok(!(await headers(page)).some((text) => text.trim() === 'Featured')));
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-list-columns');

    // After a reload (and on a list opened without its sort): Featured stays hidden, the sort
    // is the last one chosen, and the list asks only for the shown columns.
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/product?')) listRequests.push(decodeURIComponent(request.url()));
    });
    await openSearched(page, ctx, word);
    await eventually(async () => assert.equal((await titlesShown(page, word)).length, 4));
    assert.ok(!(await headers(page)).some((text) => text.trim() === 'Featured'));
    assert.deepEqual(await titlesShown(page, word), await apiTitles(ctx, `autocomplete=${word}&sort[price]=-1`));
    assert.equal(await page.getByRole('columnheader', { name: 'Price' }).getAttribute('aria-sort'), 'descending');
    const request = listRequests.at(-1) ?? '';
    assert.match(request, /project\[price\]=1/);
    assert.doesNotMatch(request, /project\[featured\]/);
    assert.doesNotMatch(request, /project\[body\]/);

    // Another browser (a context of its own: no localStorage, no cookie), signed in again: the
    // columns and the sort come back from the user's preferences on the server.
    const elsewhere = await signedInPage(suite.browser, ctx.baseUrl, 'columnist', adminPassword);
    try {
      const kept = await elsewhere.evaluate(async () => ((await (await fetch('/api/v1/@cms/preferences')).json()) as { lists: Record<string, unknown> }).lists);
      assert.deepEqual(kept, { product: { columns: ['title', 'category', 'price', 'tags', 'releaseDate', 'updatedAt'], sort: '-price' } });
      await openSearched(elsewhere, ctx, word);
      await eventually(async () => assert.deepEqual(await titlesShown(elsewhere, word), await apiTitles(ctx, `autocomplete=${word}&sort[price]=-1`)));
      assert.deepEqual((await headers(elsewhere)).map((text) => text.split('\n')[0]!.trim()).slice(1), ['Title', 'Status', 'Locale', 'Category', 'Price', 'Tags', 'Release Date', 'Last change']);
      assert.equal(await elsewhere.getByRole('columnheader', { name: 'Price' }).getAttribute('aria-sort'), 'descending');
      // A sort in the URL wins over the kept one.
      await openSearched(elsewhere, ctx, word, '&sort=title');
      await eventually(async () => assert.deepEqual(await titlesShown(elsewhere, word), [`${word} Anvil`, `${word} Bucket`, `${word} Crate`, `${word} Drum`]));
    } finally {
      await elsewhere.context().close();
    }

    // At 360 px the rows stack, each further column on a line of its own.
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-list-columns-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('filters by several ticked values (any of them), as the API does, with the state in the URL', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('lmulti');
    await seedProducts(ctx, word);
    await openSearched(page, ctx, word, '&sort=title');
    await eventually(async () => assert.equal((await titlesShown(page, word)).length, 4));
    await page.locator('summary', { hasText: 'Tags' }).click();
    const tags = page.getByRole('group', { name: 'Tags: any of' });
    await tags.getByRole('checkbox', { name: 'Red' }).check();
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), await apiTitles(ctx, `autocomplete=${word}&sort[title]=1&tags[]=red`)));
    await tags.getByRole('checkbox', { name: 'Blue' }).check();
    const expected = await apiTitles(ctx, `autocomplete=${word}&sort[title]=1&tags[]=red&tags[]=blue`);
    assert.deepEqual(expected, [`${word} Anvil`, `${word} Bucket`, `${word} Crate`]);
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), expected));
    assert.deepEqual(new URL(page.url()).searchParams.getAll('f.tags'), ['red', 'blue']);

    await page.reload();
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), expected));
    await page.locator('summary', { hasText: 'Tags' }).click();
    assert.equal(await tags.getByRole('checkbox', { name: 'Red' }).isChecked(), true);
    assert.equal(await tags.getByRole('checkbox', { name: 'Blue' }).isChecked(), true);
    assert.equal(await tags.getByRole('checkbox', { name: 'Green' }).isChecked(), false);
  });

  it('unpublishes, sets a field on and deletes the selected documents, confirming with the count', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('lbulk');
    const [anvil, bucket, crate, drum] = await seedProducts(ctx, word);
    await openSearched(page, ctx, word, '&sort=title');
    await eventually(async () => assert.equal((await titlesShown(page, word)).length, 4));
    // The change stream may still bring the seeding's changes: with no row selected yet, each
    // reloads the list (clearing a selection made meanwhile). Let them pass first.
    await page.waitForTimeout(1500);
    const bulk = page.getByRole('group', { name: 'Bulk actions' });
    const select = (doc: Doc) => page.getByRole('checkbox', { name: `Select ${doc.title}` }).check();

    // Unpublish: undone by publishing again, so not asked.
    await select(anvil!);
    await bulk.getByRole('button', { name: 'Unpublish' }).click();
    await page.getByText('Unpublished 1 product.').waitFor();
    await eventually(async () => assert.match(await row(page, anvil!.title).innerText(), /Draft only/));
    const unpublished = await fetch(`${ctx.baseUrl}/api/v1/product/${anvil!.cmsDocId}?cmsLocale=en&cmsMode=published`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
    assert.equal(unpublished.status, 404, 'no published version left');

    // Set a field: Featured = Yes on two documents.
    await select(bucket!);
    await select(crate!);
    await bulk.getByText('2 selected').waitFor();
    await bulk.getByRole('button', { name: 'Set a field…' }).click();
    const form = page.getByRole('form', { name: 'Set a field' });
    await form.getByLabel('Field').selectOption({ label: 'Featured' });
    await form.getByLabel('Value').selectOption({ label: 'Yes' });
    await form.getByRole('button', { name: 'Apply' }).click();
    const setDialog = page.getByRole('dialog', { name: 'Set Featured on 2 products?' });
    await setDialog.getByRole('button', { name: 'Set' }).click();
    await page.getByText('Updated 2 products.').waitFor();
    for (const doc of [bucket!, crate!]) {
      const draft = await api<Doc>(ctx, `/product/${doc.cmsDocId}?cmsLocale=en&cmsMode=draft`);
      assert.equal(draft.featured, true, `${doc.title} featured`);
    }
    assert.equal((await api<Doc>(ctx, `/product/${drum!.cmsDocId}?cmsLocale=en&cmsMode=draft`)).featured, false, 'an unselected one unchanged');

    // Delete: asked with the count; cancelling changes nothing.
    await select(anvil!);
    await select(bucket!);
    await bulk.getByRole('button', { name: 'Delete' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete 2 products?' });
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await apiTitles(ctx, `autocomplete=${word}`)).length, 4);
    await bulk.getByRole('button', { name: 'Delete' }).click();
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted 2 products.').waitFor();
    await eventually(async () => assert.deepEqual(await titlesShown(page, word), [crate!.title, drum!.title]));
    assert.deepEqual((await apiTitles(ctx, `autocomplete=${word}&sort[title]=1`)), [crate!.title, drum!.title]);
  });
});
