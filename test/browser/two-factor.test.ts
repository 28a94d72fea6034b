import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';
import { startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import { base32Decode, hotp, totpStep } from '../../src/auth/totp.js';

describe('admin: two-factor sign-in', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;
  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('signs in with the password, then the code the server asks for; links to Forgot password', async () => {
    const username = 'two-factor-ada';
    const password = 'two-factor-password';
    await site.createUser({ username, password, role: 'editor' });
    const call = async (path: string, body: unknown, token?: string) => {
      const response = await fetch(`${site.baseUrl}/api/v1/@cms/login${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.clone().text());
      return response.json();
    };
    const { token } = await call('/login', { username, password });
    const { secret } = await call('/totp/setup', {}, token);
    const step = totpStep(Date.now());
    await call('/totp/enable', { code: hotp(base32Decode(secret)!, step - 1) }, token);

    const page = await openPage(browser, site.baseUrl);
    await page.goto('/admin/sign-in');
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Code from your authenticator app (or a recovery code)');
    await code.waitFor();
    await code.fill(hotp(base32Decode(secret)!, Math.max(step, totpStep(Date.now()) - 1)));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();

    const other = await openPage(browser, site.baseUrl);
    await other.goto('/admin/sign-in');
    await other.getByRole('link', { name: 'Forgot password?' }).click();
    await other.getByRole('heading', { name: 'Forgot password', level: 1 }).waitFor();
  });
});
