import { describe, it, before, after } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, screenshot } from '../helpers/browser.js';
import { adminApiKey, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import * as media from './flows/media.js';
import * as users from './flows/users.js';

describe('admin: the media library and the users screen', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  const ctx = () => ({ baseUrl: site.baseUrl, apiKey: adminApiKey });

  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
    await site.createUser({ username: 'librarian', password: 'correct horse battery', role: 'admin' });
    page = await signedInPage(browser, site.baseUrl, 'librarian', 'correct horse battery');
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('uploads two images at once, edits alt text and credit, and crops one', async () => {
    await media.uploadEditAndCropImages(page, ctx());
    await screenshot(page, 'admin-media');
  });
  it('searches images with one request per search', () => media.searchImages(page, ctx()));
  it('archives and deletes images', () => media.archiveAndDeleteImages(page, ctx()));
  it('has no serious accessibility violation in the library, at 1280 and at 360 px wide', async () => {
    await page.goto('/admin/media');
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-media-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
  it('creates a user, changes the role, disables, enables and resets the password', async () => {
    await users.manageUsers(page, ctx());
    await page.goto('/admin/users');
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-users');
  });
});
