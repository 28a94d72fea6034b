import { describe, it } from 'node:test';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import * as flows from './flows/list.js';

describe('admin: the list screen', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('lister');

  it('shows status, locale and last change, and filters by choices with Back working', () => flows.listShowsStatusAndFilters(suite.page, suite.ctx));
  it('opens with at most two API requests', () => flows.listOpensWithAtMostTwoApiRequests(suite.page, suite.ctx));
  it('archives and restores in bulk', () => flows.bulkArchiveAndRestore(suite.page, suite.ctx));
  it('publishes in bulk', () => flows.bulkPublish(suite.page, suite.ctx));
  it('filters by a date range', () => flows.dateRangeFilter(suite.page, suite.ctx));
  it('reloads in the locale the switcher picks', () => flows.localeSwitchReloadsList(suite.page, suite.ctx));
  it('debounces typing in the search box', () => flows.searchTypingIsDebounced(suite.page, suite.ctx));
  it('pages and changes the page size', () => flows.paginationAndPageSize(suite.page, suite.ctx));
  it('has no serious accessibility violation, at 1280 and at 360 px wide', async () => {
    const { page } = suite;
    await page.goto('/admin/types/article');
    await page.getByRole('heading', { level: 1, name: 'Articles' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-list-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
});
