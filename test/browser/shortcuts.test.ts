import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, collectApiRequests, expectNoSeriousA11yViolations } from '../helpers/browser.js';
import { adminPassword, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import { api, uniqueWord } from './flow-support.js';

/*
 * Keyboard shortcuts and the command palette (issue 35): Mod+S saves and Mod+Shift+Enter
 * publishes as the editor's buttons do, `/` goes to the search box, Mod+K opens the palette,
 * `?` lists every shortcut. Mod is Ctrl here (Linux).
 */

interface Doc {
  readonly _id: string;
  readonly cmsDocId: string;
  readonly title: string;
}

async function draftArticle(ctx: { baseUrl: string; apiKey: string }, title: string): Promise<Doc> {
  return api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title } });
}

/** The status of a GET with the admin key: a version that does not exist is a 404. */
async function statusOf(ctx: { baseUrl: string; apiKey: string }, path: string): Promise<number> {
  const response = await fetch(`${ctx.baseUrl}/api/v1${path}`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
  await response.body?.cancel();
  return response.status;
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/** Whether the page's last keydown had its default (the browser's own action) prevented. */
async function watchDefaultPrevented(page: Page): Promise<() => Promise<boolean>> {
  // Added after the admin's listener, so it sees what that one did.
  await page.evaluate(() => window.addEventListener('keydown', (event) => ((window as unknown as { lastPrevented: boolean }).lastPrevented = event.defaultPrevented)));
  return () => page.evaluate(() => (window as unknown as { lastPrevented: boolean }).lastPrevented);
}

async function openList(page: Page): Promise<void> {
  await page.goto('/admin/types/article');
  await page.getByRole('heading', { level: 1, name: 'Articles' }).waitFor();
  await page.locator('#list-search').waitFor();
}

describe('admin: keyboard shortcuts and the command palette', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('keys', 'Kim Keys');

  it('saves the draft with Ctrl+S while typing in a field, keeping the browser from its save dialog', async () => {
    const { page, ctx } = suite;
    const article = await draftArticle(ctx, uniqueWord('save'));
    await page.goto(`/admin/types/article/${article.cmsDocId}`);
    const title = page.getByRole('textbox', { name: 'Title', exact: true });
    const changed = uniqueWord('saved');
    await title.fill(changed);
    const prevented = await watchDefaultPrevented(page);
    await title.press('Control+s');
    await page.getByText('Draft saved').first().waitFor();
    assert.equal(await prevented(), true);
    const draft = await api<Doc>(ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=draft`);
    assert.equal(draft.title, changed);
    assert.equal(await page.getByRole('button', { name: 'Save draft' }).getAttribute('aria-keyshortcuts'), 'Control+S');
  });

  it('publishes with Ctrl+Shift+Enter, as the Publish button does', async () => {
    const { page, ctx } = suite;
    const article = await draftArticle(ctx, uniqueWord('publish'));
    assert.equal(await statusOf(ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=published`), 404);
    await page.goto(`/admin/types/article/${article.cmsDocId}`);
    const title = page.getByRole('textbox', { name: 'Title', exact: true });
    const changed = uniqueWord('published');
    await title.fill(changed);
    assert.equal(await page.getByRole('button', { name: 'Publish', exact: true }).getAttribute('aria-keyshortcuts'), 'Control+Shift+Enter');
    await title.press('Control+Shift+Enter');
    await page.getByText('Published', { exact: true }).first().waitFor();
    // The unsaved title was saved first and then published, as the button does.
    const published = await api<Doc>(ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=published`);
    assert.equal(published.title, changed);
  });

  it('publishes nothing with Ctrl+Shift+Enter for a contributor, who has no Publish button', async () => {
    const { browser, site, ctx } = suite;
    const username = uniqueWord('contrib');
    await site.createUser({ username, password: adminPassword, role: 'contributor' });
    const page = await signedInPage(browser, site.baseUrl, username, adminPassword);
    try {
      await page.goto('/admin/types/article/new');
      const title = page.getByRole('textbox', { name: 'Title', exact: true });
      await title.fill(uniqueWord('contributed'));
      assert.equal(await page.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
      await title.press('Control+Shift+Enter');
      // Keys are handled in order: once the save that follows is done, a publish would have run.
      await title.press('Control+s');
      await page.waitForURL((url) => !url.pathname.endsWith('/new'));
      await page.getByText('Draft saved').first().waitFor();
      const docId = new URL(page.url()).pathname.split('/').pop();
      assert.equal(await statusOf(ctx, `/article/${docId}?cmsLocale=en&cmsMode=draft`), 200);
      assert.equal(await statusOf(ctx, `/article/${docId}?cmsLocale=en&cmsMode=published`), 404);
    } finally {
      await page.context().close();
    }
  });

  it('puts the cursor in the list search with /, and types / as text in a field', async () => {
    const { page } = suite;
    await openList(page);
    await page.locator('main h1').click();
    assert.notEqual(await focusedId(page), 'list-search');
    await page.keyboard.press('/');
    assert.equal(await focusedId(page), 'list-search');
    assert.equal(await page.locator('#list-search').getAttribute('aria-keyshortcuts'), '/');
    await page.keyboard.type('a/b');
    // In the search box the key is text: it neither refocused nor was swallowed.
    assert.equal(await page.locator('#list-search').inputValue(), 'a/b');

    // The media library's search box answers it too.
    await page.goto('/admin/media');
    const mediaSearch = page.getByRole('searchbox', { name: 'Search images', exact: true });
    await mediaSearch.waitFor();
    await page.locator('main h1').click();
    await page.keyboard.press('/');
    assert.equal(await mediaSearch.evaluate((input) => input === document.activeElement), true);
  });

  it('opens the command palette with Ctrl+K, finds a document by part of its title, and Enter opens its editor', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('zephyrine');
    const article = await draftArticle(ctx, `${word} harbour notes`);
    await openList(page);
    await page.locator('#list-search').focus();
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    const input = palette.getByRole('combobox', { name: 'Go to' });
    await input.waitFor();
    assert.equal(await focusedId(page), 'palette-input');

    // Empty, it offers every list and screen; the arrows move the active option.
    const options = palette.getByRole('option');
    const lists = palette.getByRole('option', { name: /List$/ });
    const typeCount = await lists.count();
    assert.ok(typeCount >= 3, `the lists of the types (${typeCount})`);
    assert.equal(await input.getAttribute('aria-activedescendant'), 'palette-results-0');
    assert.equal(await options.first().getAttribute('aria-selected'), 'true');
    await input.press('ArrowDown');
    assert.equal(await input.getAttribute('aria-activedescendant'), 'palette-results-1');
    assert.equal(await options.nth(1).getAttribute('aria-selected'), 'true');
    await input.press('ArrowUp');
    await input.press('ArrowUp');
    assert.equal(await input.getAttribute('aria-activedescendant'), `palette-results-${(await options.count()) - 1}`, 'Up from the first wraps to the last');

    // Part of a word of the title: one request per type, bounded to five documents each.
    const requests = collectApiRequests(page);
    await input.fill(word.slice(0, -3));
    const found = palette.getByRole('option', { name: `${word} harbour notes Article` });
    await found.waitFor();
    const searches = requests.requests.filter((request) => request.includes('autocomplete='));
    assert.equal(searches.length, typeCount, searches.join('\n'));
    for (const search of searches) {
      assert.match(search, /^GET \/api\/v1\/[\w-]+\?/);
      assert.match(search, /perPage=5/);
      assert.match(search, new RegExp(`autocomplete=${word.slice(0, -3)}(&|$)`));
    }
    assert.equal(await options.count(), 1, 'no list or screen is named so');
    assert.equal(await input.getAttribute('aria-activedescendant'), await found.getAttribute('id'));
    await input.press('Enter');
    await page.waitForURL((url) => url.pathname === `/admin/types/article/${article.cmsDocId}`);
    await page.getByRole('heading', { level: 1, name: `${word} harbour notes` }).waitFor();
    assert.equal(await palette.count(), 0);
  });

  it('goes to a screen from the palette, and Esc closes it with focus back where it was', async () => {
    const { page } = suite;
    await openList(page);
    await page.locator('#list-search').focus();
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    const input = palette.getByRole('combobox', { name: 'Go to' });
    await input.waitFor();
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    assert.equal(await focusedId(page), 'list-search');

    await page.keyboard.press('Control+k');
    await input.fill('audi');
    await palette.getByRole('option', { name: 'Audit Screen' }).waitFor();
    await input.press('Enter');
    await page.waitForURL((url) => url.pathname === '/admin/audit');
  });

  it('lists every shortcut under ?, and types ? as text in a field', async () => {
    const { page } = suite;
    await openList(page);
    await page.locator('#list-search').fill('');
    await page.locator('#list-search').press('?');
    assert.equal(await page.locator('#list-search').inputValue(), '?');
    assert.equal(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count(), 0);

    await page.locator('main h1').click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    const rows = await help.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
    assert.deepEqual(rows, [
      ['Ctrl+S', 'Save the draft, as the Save button', 'In the editor'],
      ['Ctrl+Shift+Enter', 'Publish the document, as the Publish button', 'In the editor'],
      ['Ctrl+K', 'Open the command palette: go to a type, a screen or a document by typing', 'Anywhere'],
      ['/', 'Put the cursor in the search box', 'In lists: content, media, users'],
      ['?', 'Show this list of shortcuts', 'Anywhere'],
    ]);
    await help.getByRole('button', { name: 'Close' }).click();
    await help.waitFor({ state: 'detached' });
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`shows the palette and the shortcut list with no serious accessibility violation in the ${theme} theme`, async () => {
      const { page, ctx } = suite;
      await draftArticle(ctx, `${uniqueWord('axe')} lantern`);
      await page.emulateMedia({ colorScheme: theme });
      try {
        await openList(page);
        const surface = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        assert.equal(surface, theme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
        await page.keyboard.press('Control+k');
        const palette = page.getByRole('dialog', { name: 'Command palette' });
        await palette.getByRole('combobox', { name: 'Go to' }).fill('lantern');
        await palette.getByRole('option', { name: /lantern Article$/ }).first().waitFor();
        await palette.getByRole('status').filter({ hasText: /results?, use the arrow keys/ }).waitFor();
        await expectNoSeriousA11yViolations(page);
        await page.keyboard.press('Escape');
        await palette.waitFor({ state: 'detached' });

        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        await expectNoSeriousA11yViolations(page);
        await page.keyboard.press('Escape');
      } finally {
        await page.emulateMedia({ colorScheme: null });
      }
    });
  }
});
