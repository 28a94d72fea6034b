import { describe, it, before, after } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, screenshot } from '../helpers/browser.js';
import { adminApiKey, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import * as flows from './flows/list.js';

describe('admin: the list screen', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  const ctx = () => ({ baseUrl: site.baseUrl, apiKey: adminApiKey });

  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
    await site.createUser({ username: 'lister', password: 'correct horse battery', role: 'admin' });
    page = await signedInPage(browser, site.baseUrl, 'lister', 'correct horse battery');
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('shows status, locale and last change, and filters by choices with Back working', () => flows.listShowsStatusAndFilters(page, ctx()));
  it('opens with at most two API requests', () => flows.listOpensWithAtMostTwoApiRequests(page, ctx()));
  it('archives and restores in bulk', () => flows.bulkArchiveAndRestore(page, ctx()));
  it('publishes in bulk', () => flows.bulkPublish(page, ctx()));
  it('filters by a date range', () => flows.dateRangeFilter(page, ctx()));
  it('reloads in the locale the switcher picks', () => flows.localeSwitchReloadsList(page, ctx()));
  it('debounces typing in the search box', () => flows.searchTypingIsDebounced(page, ctx()));
  it('pages and changes the page size', () => flows.paginationAndPageSize(page, ctx()));
  it('has no serious accessibility violation, at 1280 and at 360 px wide', async () => {
    await page.goto('/admin/types/article');
    await page.getByRole('heading', { level: 1, name: 'Articles' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-list');
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-list-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
});
