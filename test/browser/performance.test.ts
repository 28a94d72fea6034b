import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { adminApiKey, adminPassword, adminTestConfig, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import { apiTestsOnPostgres } from '../helpers/test-app.js';
import { seedCopies } from '../helpers/bulk-seed.js';
import { seedImage, type FlowContext } from './flow-support.js';

/*
 * The admin at 100,000 documents (issue 35, point 9): every screen answers in under 300 ms, timed
 * in the browser from the route change (a click on a link or a control, a search submitted) until
 * the screen shows its content. Each screen is timed three times and the median is asserted, so
 * that one disturbed run on a shared machine does not decide. SQLite only: CI runs the suite on
 * PostgreSQL as well, and seeding 100,000 documents there would double the suite's slowest test
 * for a store whose plans the API tests already cover.
 */

const documentCount = 100_000;
const budgetMs = 300;
const runs = 3;
const tags = ['news', 'tech', 'sports'] as const;
const tagLabels = { news: 'News', tech: 'Tech', sports: 'Sports' } as const;

const numbered = (n: number) => String(n).padStart(6, '0');
/** The n-th seeded article: its number and its one tag in the title, so that every screen can tell its rows apart. */
const titleOf = (n: number) => `Article ${numbered(n)} ${tags[n % tags.length]}`;

/** What starts a screen: a click on the element `click` selects (the first holding `text`), or a search submitted. */
type Trigger = { readonly click: string; readonly text?: string } | { readonly search: string };

/** The screen shows its content: an element `selector` selects is there (every one's text matching `text`, when given). */
interface Shown {
  readonly selector: string;
  readonly text?: string;
}

/**
 * Milliseconds from the trigger until every `shown` holds and nothing in the page is still busy
 * (`aria-busy`), measured in the page with the Performance API: the trigger runs in the page,
 * and every DOM change and animation frame after it looks again.
 */
function timeScreen(page: Page, trigger: Trigger, shown: readonly Shown[]): Promise<number> {
  return page.evaluate(
    ({ trigger, shown }) =>
      new Promise<number>((resolve, reject) => {
        const holds = () =>
          document.querySelector('[aria-busy="true"]') === null &&
          shown.every(({ selector, text }) => {
            const found = [...document.querySelectorAll<HTMLElement>(selector)];
            return found.length > 0 && (text === undefined || found.every((element) => new RegExp(text).test(element.textContent ?? '')));
          });
        if (holds()) return reject(new Error(`shown before the trigger: ${JSON.stringify(shown)}`));
        let done = false;
        const finish = () => {
          if (done || !holds()) return;
          done = true;
          observer.disconnect();
          clearTimeout(timeout);
          resolve(performance.measure('screen', 'trigger').duration);
        };
        const observer = new MutationObserver(finish);
        const timeout = setTimeout(() => {
          observer.disconnect();
          done = true;
          const busy = document.querySelector('[aria-busy="true"]');
          const found = shown.map(({ selector }) => [...document.querySelectorAll(selector)].map((element) => element.textContent).slice(0, 3));
          reject(new Error(`not shown within 10 s: ${JSON.stringify(shown)}; found ${JSON.stringify(found)}${busy ? `; busy: ${busy.outerHTML.slice(0, 120)}` : ''}`));
        }, 10_000);
        const frames = () => {
          finish();
          if (!done) requestAnimationFrame(frames);
        };
        observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
        performance.mark('trigger');
        if ('search' in trigger) {
          const input = document.querySelector<HTMLInputElement>('#list-search')!;
          input.value = trigger.search;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          input.form!.requestSubmit();
        } else {
          const target = [...document.querySelectorAll<HTMLElement>(trigger.click)].find((element) => trigger.text === undefined || element.textContent?.includes(trigger.text));
          if (!target) return reject(new Error(`nothing to click: ${trigger.click} ${trigger.text ?? ''}`));
          target.click();
        }
        requestAnimationFrame(frames);
      }),
    { trigger, shown },
  );
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe(`admin: every screen answers in under ${budgetMs} ms at ${documentCount.toLocaleString('en')} documents`, { skip: browserSkipReason ?? (apiTestsOnPostgres ? 'measured on SQLite only' : undefined) }, () => {
  let dataDir: string;
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  let seedSeconds = 0;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cms-100k-'));
    const config = adminTestConfig();
    const env = { CMS_DATA_DIR: dataDir };
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>The harbour at <strong>midnight</strong>, lit by the lighthouse.</p>' }] };
    ({ seconds: seedSeconds } = await seedCopies({
      config,
      env,
      type: 'article',
      count: documentCount,
      body: { category: 'Harbour', body },
      copy: (n) => ({ title: titleOf(n), fields: { tags: [tags[n % tags.length]], priority: n % 101 } }),
    }));
    site = await startAdminSite(config, env);
    const ctx: FlowContext = { baseUrl: site.baseUrl, apiKey: adminApiKey };
    for (const title of ['harbour', 'lighthouse', 'gulls']) await seedImage(ctx, title);
    browser = await launchBrowser();
    await site.createUser({ username: 'swift', password: adminPassword, role: 'admin', title: 'Sam Swift' });
    page = await signedInPage(browser, site.baseUrl, 'swift', adminPassword);
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('shows the home screen, the list (first page, sorted, filtered, searched), the editor and media each within the budget', async (t) => {
    t.diagnostic(`seeded ${documentCount.toLocaleString('en')} articles in ${seedSeconds.toFixed(1)} s`);
    const timings = new Map<string, number[]>();
    const time = async (screen: string, trigger: Trigger, shown: readonly Shown[]) => {
      const ms = await timeScreen(page, trigger, shown);
      t.diagnostic(`${screen}: ${ms.toFixed(0)} ms`);
      timings.set(screen, [...(timings.get(screen) ?? []), ms]);
    };
    const rowTitles = '.results tbody td.title a';
    for (let run = 0; run < runs; run++) {
      await time('list, first page', { click: '#main-nav a[href="/admin/types/article"]' }, [{ selector: rowTitles, text: '^Article \\d{6} ' }]);
      // By title, A to Z, then Z to A, then A to Z again: each a new first row.
      const first = run % 2 === 0 ? titleOf(0) : titleOf(documentCount - 1);
      await time('list, sorted by title', { click: '.results thead th.title button.sort' }, [{ selector: `${rowTitles}`, text: '^Article \\d{6} ' }, { selector: '.results tbody tr:first-child', text: first }]);
      const tag = tags[run];
      await page.locator('details.any-of').first().locator('summary').click();
      await time('list, filtered by a tag', { click: 'details.any-of label', text: tagLabels[tag] }, [{ selector: rowTitles, text: ` ${tag}$` }]);
      await page.locator('details.any-of').first().locator('summary').click();
      await page.getByRole('button', { name: 'Clear search and filters' }).click();
      await page.locator('.results[aria-busy="false"]').waitFor();
      const wanted = 12_345 + run * 31_000;
      await time('list, searched', { search: numbered(wanted) }, [{ selector: rowTitles, text: `^${titleOf(wanted)}$` }]);
      await time('editor', { click: rowTitles, text: titleOf(wanted) }, [
        { selector: '.editor-header h1', text: `^${titleOf(wanted)}\\b` },
        { selector: '.editor-form [contenteditable="true"]' },
      ]);
      await time('media', { click: '#main-nav a[href="/admin/media"]' }, [{ selector: '.media-grid .media-title', text: '^(harbour|lighthouse|gulls)$' }]);
      // Last: a run starts on the home screen, where signing in left the page.
      // The dashboard's recently changed articles: newest first over the 100,000.
      await time('home', { click: 'a.brand' }, [
        { selector: 'main h1', text: '^Content$' },
        { selector: 'section[aria-labelledby="dashboard-recentlyChanged"] a[href^="/admin/types/article/"]' },
      ]);
    }
    const report = [...timings].map(([screen, values]) => `${screen}: median ${median(values).toFixed(0)} ms (${values.map((value) => value.toFixed(0)).join(', ')})`);
    t.diagnostic(report.join('; '));
    const over = [...timings].filter(([, values]) => median(values) >= budgetMs).map(([screen, values]) => `${screen} ${median(values).toFixed(0)} ms`);
    assert.deepEqual(over, [], `over the ${budgetMs} ms budget: ${over.join(', ')}`);
  });
});
