import { describe, it } from 'node:test';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import * as media from './flows/media.js';
import * as users from './flows/users.js';

describe('admin: the media library and the users screen', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('librarian');

  it('uploads two images at once, edits alt text and credit, and crops one', () => media.uploadEditAndCropImages(suite.page, suite.ctx));
  it('searches images with one request per search', () => media.searchImages(suite.page, suite.ctx));
  it('archives and deletes images', () => media.archiveAndDeleteImages(suite.page, suite.ctx));
  it('lists where an image is used, and names the published documents before deleting it', () => media.deleteImageInUse(suite.page, suite.ctx));
  it('has no serious accessibility violation in the library, at 1280 and at 360 px wide', async () => {
    const { page } = suite;
    await page.goto('/admin/media');
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 740 });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-media-360');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
  it('creates a user, changes the role, disables, enables and resets the password', async () => {
    const { page } = suite;
    await users.manageUsers(page, suite.ctx);
    await page.goto('/admin/users');
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-users');
  });
});
