import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser } from '../helpers/browser.js';
import { adminPassword, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';

/*
 * The admin's themes (issue 35): the system's by default (prefers-color-scheme), or the one the
 * user picks in the top bar, kept on the server (GET/PATCH /api/v1/@cms/preferences) and mirrored
 * in localStorage. Every screen in both themes: accessibility.test.ts.
 */

const darkSurface = 'rgb(13, 17, 23)';
const lightSurface = 'rgb(255, 255, 255)';

const background = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const themeAttribute = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme ?? null);

/** Picks a theme in the top bar and waits for the server to keep it. */
async function chooseTheme(page: Page, theme: 'system' | 'light' | 'dark'): Promise<void> {
  const saved = page.waitForResponse((response) => response.url().endsWith('/api/v1/@cms/preferences') && response.request().method() === 'PATCH');
  await page.getByLabel('Theme').selectOption(theme);
  assert.equal((await saved).status(), 200);
}

describe('admin: light and dark themes', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;

  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
    await site.createUser({ username: 'dana', password: adminPassword, role: 'admin', title: 'Dana Dark' });
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('follows the emulated prefers-color-scheme while the choice is System', async () => {
    const context = await browser.newContext({ baseURL: site.baseUrl, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto('/admin/sign-in');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await themeAttribute(page), null);
    assert.equal(await background(page), darkSurface);
    await expectNoSeriousA11yViolations(page);
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await background(page), lightSurface);
    await expectNoSeriousA11yViolations(page);
    await context.close();
  });

  it('keeps the chosen theme on the server: a new browser, and one whose localStorage was cleared, show it', async () => {
    const page = await signedInPage(browser, site.baseUrl, 'dana', adminPassword);
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await page.getByLabel('Theme').inputValue(), 'system');
    assert.equal(await background(page), lightSurface);
    await chooseTheme(page, 'dark');
    assert.equal(await themeAttribute(page), 'dark');
    assert.equal(await background(page), darkSurface, 'dark although the system is light');
    // The chosen theme's colours (data-theme) pass as the system's do (accessibility.test.ts).
    await expectNoSeriousA11yViolations(page);
    assert.equal(await page.evaluate(() => localStorage.getItem('cms.theme')), 'dark', 'mirrored for the next first paint');

    // Another browser (no localStorage): dark once signed in.
    const elsewhere = await signedInPage(browser, site.baseUrl, 'dana', adminPassword);
    await elsewhere.emulateMedia({ colorScheme: 'light' });
    assert.equal(await themeAttribute(elsewhere), 'dark');
    assert.equal(await background(elsewhere), darkSurface);
    // Its localStorage cleared: the reload reads the theme from the server, and mirrors it again.
    await elsewhere.evaluate(() => localStorage.clear());
    await elsewhere.reload();
    await elsewhere.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    assert.equal(await elsewhere.getByLabel('Theme').inputValue(), 'dark');
    assert.equal(await themeAttribute(elsewhere), 'dark');
    assert.equal(await elsewhere.evaluate(() => localStorage.getItem('cms.theme')), 'dark');

    // Back to System: the attribute goes, the emulated scheme decides again.
    await chooseTheme(elsewhere, 'system');
    assert.equal(await themeAttribute(elsewhere), null);
    assert.equal(await background(elsewhere), lightSurface);
    await elsewhere.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(elsewhere), darkSurface);
    await page.context().close();
    await elsewhere.context().close();
  });

  it('has an accessibility check that fails: text of too low a contrast in the dark theme is refused', async () => {
    const page = await signedInPage(browser, site.baseUrl, 'dana', adminPassword);
    await chooseTheme(page, 'dark');
    // A colour the tokens do not give: light-theme muted text on the dark surface (under 3:1).
    await page.evaluate(() => {
      const text = document.createElement('p');
      text.textContent = 'Hard to read';
      text.style.color = '#57606a';
      document.querySelector('main')!.append(text);
    });
    await assert.rejects(expectNoSeriousA11yViolations(page), /color-contrast/);
    await page.context().close();
  });
});
