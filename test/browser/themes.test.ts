import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, screenshot } from '../helpers/browser.js';
import { adminApiKey, adminPassword, adminTestConfig, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import { api, type FlowContext } from './flow-support.js';

/*
 * The admin's themes (issue 35): the system's by default (prefers-color-scheme), or the one the
 * user picks in the top bar, kept on the server (GET/PATCH /api/v1/@cms/preferences) and mirrored
 * in localStorage; every screen without a serious accessibility violation in both.
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

async function uploadImage(ctx: FlowContext, title: string): Promise<{ cmsDocId: string }> {
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#1d6fa5' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), `${title}.png`);
  const upload = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: form });
  assert.ok(upload.ok, `upload: ${upload.status}`);
  const attachment = (await upload.json()) as { _id: string };
  return api(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title, alt: `${title} alt`, attachment: { _id: attachment._id } } });
}

/** A front end for the Preview pane: one plain page on another origin. */
async function previewFrontEnd(): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Front end</title><h1>The front end</h1></html>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, base: `http://127.0.0.1:${address.port}` };
}

describe('admin: light and dark themes', { skip: browserSkipReason }, () => {
  let frontEnd: { server: Server; base: string };
  let site: AdminTestSite;
  let browser: Browser;
  let ctx: FlowContext;
  let articleId: string;

  before(async () => {
    frontEnd = await previewFrontEnd();
    const config = adminTestConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
    config.modules.article!.options.preview = { url: `${frontEnd.base}/articles/{slug}` };
    site = await startAdminSite(config);
    browser = await launchBrowser();
    ctx = { baseUrl: site.baseUrl, apiKey: adminApiKey };
    await site.createUser({ username: 'dana', password: adminPassword, role: 'admin', title: 'Dana Dark' });
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<h2>Night shift</h2><p>The harbour at <strong>midnight</strong>, lit by <a href="https://example.com">the lighthouse</a>.</p>' }] };
    const article = await api<{ cmsDocId: string }>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: 'After dark', body } });
    articleId = article.cmsDocId;
    // A second save, for the history's diff; a draft-only article and a modified one, for the badges.
    await api(ctx, `/article/${articleId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { title: 'After dark falls' } });
    await api(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: 'Only a draft' } });
    await uploadImage(ctx, 'lighthouse');
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
    await new Promise((resolve) => frontEnd?.server.close(resolve));
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

  for (const theme of ['light', 'dark'] as const) {
    it(`shows every screen in the ${theme} theme with no serious accessibility violation`, async () => {
      const page = await signedInPage(browser, site.baseUrl, 'dana', adminPassword);
      // The other scheme emulated: the chosen theme must win over it.
      await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
      await chooseTheme(page, theme);
      assert.equal(await background(page), theme === 'dark' ? darkSurface : lightSurface);
      await expectNoSeriousA11yViolations(page);

      // The list: its table and status badges; the bulk archive's confirm dialog.
      await page.goto('/admin/types/article');
      await page.getByRole('link', { name: 'Only a draft' }).waitFor();
      await expectNoSeriousA11yViolations(page);
      if (theme === 'dark') await screenshot(page, 'admin-dark-list');
      await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
      await page.getByRole('group', { name: 'Bulk actions' }).getByRole('button', { name: 'Archive' }).click();
      const confirm = page.getByRole('dialog', { name: /^Archive \d+ articles\?$/ });
      await confirm.waitFor();
      await expectNoSeriousA11yViolations(page);
      await confirm.getByRole('button', { name: 'Cancel' }).click();

      // The editor with rich text and its toolbar.
      await page.goto(`/admin/types/article/${articleId}`);
      const richText = page.getByRole('textbox', { name: 'Body: Rich Text 1' });
      await richText.click();
      await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).waitFor();
      await expectNoSeriousA11yViolations(page);
      if (theme === 'dark') await screenshot(page, 'admin-dark-editor');

      // The link's text prompt.
      await page.keyboard.press('Control+A');
      await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).getByRole('button', { name: 'Link' }).click();
      const prompt = page.getByRole('dialog', { name: 'Link' });
      await prompt.waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.keyboard.press('Escape');
      await prompt.waitFor({ state: 'detached' });

      // The media picker. Its button's text keeps the space before the hidden words (the name alone would not tell).
      const browse = page.getByRole('button', { name: 'Browse media for Hero Image' });
      assert.equal((await browse.textContent())?.trim(), 'Browse media for Hero Image');
      await browse.click();
      const picker = page.getByRole('dialog', { name: 'Choose an image' });
      await picker.getByRole('button', { name: 'lighthouse' }).waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.keyboard.press('Escape');
      await picker.waitFor({ state: 'hidden' });

      // A notification.
      // Each run a title the other did not store, so that there is a change to save.
      await page.getByRole('textbox', { name: 'Title', exact: true }).fill(theme === 'dark' ? 'After dark falls' : 'After dark, at dusk');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft saved').first().waitFor();
      await expectNoSeriousA11yViolations(page);

      // The history and its diff.
      await page.getByRole('button', { name: 'History' }).click();
      const history = page.getByRole('region', { name: 'History' });
      const entries = history.locator('.history-entry');
      await entries.nth(1).waitFor();
      // The newest against the first (saves of one user within a minute make one entry): the title differs.
      await entries.first().getByRole('checkbox').check();
      await entries.last().getByRole('checkbox').check();
      await page.getByRole('region', { name: 'Differences' }).locator('[data-field="title"]').waitFor();
      await expectNoSeriousA11yViolations(page);

      // The Preview pane.
      await page.getByRole('button', { name: 'Preview', exact: true }).click();
      await page.frameLocator('iframe').getByRole('heading', { name: 'The front end' }).waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.getByRole('button', { name: 'Preview', exact: true }).click();

      // The conflict dialog: the draft changed on the server (an API key) while the form held other changes.
      await page.getByRole('textbox', { name: 'Category', exact: true }).fill(theme === 'dark' ? 'Tides' : 'Harbour');
      await api(ctx, `/article/${articleId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { category: theme === 'dark' ? 'Night' : 'Lighthouse' } });
      await page.getByRole('button', { name: 'Save draft' }).click();
      const conflict = page.getByRole('dialog', { name: 'This document changed while you edited it' });
      await conflict.waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.keyboard.press('Escape');

      // The media library and the crop tool.
      await page.goto('/admin/media');
      await page.getByRole('button', { name: 'lighthouse' }).click();
      await expectNoSeriousA11yViolations(page);
      await page.getByRole('button', { name: 'Crop', exact: true }).click();
      const crop = page.getByRole('dialog', { name: 'Crop image' });
      await crop.waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.keyboard.press('Escape');
      await page.context().close();
    });
  }
});
