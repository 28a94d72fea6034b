import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { adminApiKey, adminPassword, adminTestConfig, setupCode, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import { api, type FlowContext } from './flow-support.js';

/*
 * Every screen of the admin, and every dialog and panel on them, with no serious or critical
 * axe-core violation in the light theme and in the dark one (issue 35, point 8b). One page in one
 * browser context walks them all in order, as a person would; each state is checked twice, its
 * colour scheme switched in between, so a screen is reached once for both themes. The theme is
 * the system's (the choice stays "System"); themes.test.ts shows that a chosen theme gives the
 * same colours.
 */

const themes = ['light', 'dark'] as const;

/** The page as it is now, in both themes; `name` saves the dark one as a screenshot for the docs. */
async function expectAccessibleInBothThemes(page: Page, name?: string): Promise<void> {
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme });
    await expectNoSeriousA11yViolations(page);
    if (name && theme === 'dark') await screenshot(page, name);
  }
}

/** A type with a field of every kind the admin has a control for. */
const specimenType = {
  extend: '@cms/piece-type',
  options: { label: 'Specimen' },
  fields: {
    add: {
      summary: { type: 'string', textarea: true },
      website: { type: 'url' },
      contact: { type: 'email' },
      rating: { type: 'float', min: 0, max: 5 },
      copies: { type: 'integer', min: 0 },
      featured: { type: 'boolean' },
      size: { type: 'select', choices: [{ label: 'Small', value: 'small' }, { label: 'Large', value: 'large' }] },
      flavours: { type: 'checkboxes', choices: [{ label: 'Salt', value: 'salt' }, { label: 'Smoke', value: 'smoke' }] },
      day: { type: 'date' },
      opensAt: { type: 'time' },
      launch: { type: 'dateAndTime' },
      shade: { type: 'color' },
      steps: { type: 'array', fields: { add: { label: { type: 'string', required: true }, minutes: { type: 'integer' } } } },
      address: { type: 'object', fields: { add: { street: { type: 'string' }, city: { type: 'string' } } } },
      _articles: { type: 'relationship', withType: 'article' },
      leaflet: { type: 'attachment' },
      body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, '@cms/image': {} } } },
    },
  },
};

async function uploadImage(ctx: FlowContext, title: string): Promise<{ cmsDocId: string; attachment: { _id: string } }> {
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

describe('admin: every screen in the light and the dark theme, with no serious accessibility violation', { skip: browserSkipReason }, () => {
  let frontEnd: { server: Server; base: string };
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  let ctx: FlowContext;

  before(async () => {
    frontEnd = await previewFrontEnd();
    const config = adminTestConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
    config.modules.article!.options.preview = { url: `${frontEnd.base}/articles/{slug}` };
    config.modules.specimen = specimenType as never;
    site = await startAdminSite(config);
    ctx = { baseUrl: site.baseUrl, apiKey: adminApiKey };
    browser = await launchBrowser();
    page = await openPage(browser, site.baseUrl);
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
    await new Promise((resolve) => frontEnd?.server.close(resolve));
  });

  it('shows the screens before signing in: sign-in and its refusal, the 404 screen, and first run', async () => {
    await page.goto('/admin/sign-in');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.getByLabel('Username or email').fill('nobody');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await expectAccessibleInBothThemes(page);

    await page.goto('/admin/no-such-screen');
    await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
    await expectAccessibleInBothThemes(page);

    // First run, while the store has no user: it creates the admin the other tests sign in as.
    await page.goto('/admin/setup');
    await page.getByLabel('Setup code').fill(setupCode(site.logLines));
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Display name').fill('Ada Access');
    await page.getByLabel('Password').fill(adminPassword);
    await expectAccessibleInBothThemes(page);
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
  });

  it('shows home, a list with documents, its bulk confirm dialog and the signed-in 404 screen', async () => {
    await api(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: 'Published piece', tags: ['news'] } });
    await api(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: 'Only a draft' } });
    const modified = await api<{ cmsDocId: string }>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: 'Changed since' } });
    await api(ctx, `/article/${modified.cmsDocId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { title: 'Changed since publishing' } });
    await page.goto('/admin/');
    await page.getByRole('link', { name: 'Changed since publishing' }).first().waitFor();
    await expectAccessibleInBothThemes(page);

    await page.goto('/admin/types/article');
    await page.getByRole('link', { name: 'Only a draft' }).waitFor();
    await page.locator('details.any-of summary').first().click();
    await expectAccessibleInBothThemes(page, 'admin-dark-list');
    await page.locator('details.any-of summary').first().click();
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByRole('group', { name: 'Bulk actions' }).getByRole('button', { name: 'Archive' }).click();
    const confirm = page.getByRole('dialog', { name: /^Archive \d+ articles\?$/ });
    await confirm.waitFor();
    await expectAccessibleInBothThemes(page);
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    await page.goto('/admin/nowhere/at/all');
    await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
    await expectAccessibleInBothThemes(page);
  });

  it('shows the editor with a field of every kind, rich text and its toolbar, the link prompt and the related-document chooser', async () => {
    const image = await uploadImage(ctx, 'lighthouse');
    const article = await api<{ cmsDocId: string }>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: 'Related reading' } });
    const specimen = await api<{ cmsDocId: string }>(ctx, '/specimen?cmsLocale=en', {
      method: 'POST',
      body: {
        title: 'Every field',
        summary: 'A summary\nin two lines',
        website: 'https://example.com',
        contact: 'ada@example.com',
        rating: 4.5,
        copies: 12,
        featured: true,
        size: 'large',
        flavours: ['smoke'],
        day: '2026-05-01',
        opensAt: '09:30',
        launch: '2026-05-01T09:30:00.000Z',
        shade: '#1d6fa5',
        steps: [{ label: 'Mix', minutes: 5 }, { label: 'Bake', minutes: 40 }],
        address: { street: '1 Quay Street', city: 'Harbourtown' },
        _articles: [article.cmsDocId],
        leaflet: { _id: image.attachment._id },
        body: { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<h2>Notes</h2><p>Read <a href="https://example.com">the guide</a> <strong>first</strong>.</p>' }] },
      },
    });
    await page.goto(`/admin/types/specimen/${specimen.cmsDocId}`);
    const richText = page.getByRole('textbox', { name: 'Body: Rich Text 1' });
    await richText.click();
    await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).waitFor();
    await page.getByRole('button', { name: 'Edit Related reading' }).waitFor();
    await expectAccessibleInBothThemes(page);

    await page.keyboard.press('Control+A');
    await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).getByRole('button', { name: 'Link' }).click();
    const prompt = page.getByRole('dialog', { name: 'Link' });
    await prompt.waitFor();
    await expectAccessibleInBothThemes(page);
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Create new Article for Articles' }).click();
    const related = page.getByRole('dialog');
    await related.getByRole('button', { name: 'Create draft' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.keyboard.press('Escape');
    await related.waitFor({ state: 'hidden' });
  });

  it('shows an article: the media picker, a notification, the history and its diff, Preview, the schedule and share panels, the conflict dialog', async () => {
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>The harbour at <strong>midnight</strong>.</p>' }] };
    const article = await api<{ cmsDocId: string }>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: 'After dark', body } });
    await api(ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { title: 'After dark falls' } });
    await page.goto(`/admin/types/article/${article.cmsDocId}`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await expectAccessibleInBothThemes(page, 'admin-dark-editor');

    // Its text keeps the space before the hidden words (the accessible name alone would not tell).
    const browse = page.getByRole('button', { name: 'Browse media for Hero Image' });
    assert.equal((await browse.textContent())?.trim(), 'Browse media for Hero Image');
    await browse.click();
    const picker = page.getByRole('dialog', { name: 'Choose an image' });
    await picker.getByRole('button', { name: 'lighthouse' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'hidden' });

    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('After dark, at dusk');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved').first().waitFor();
    await expectAccessibleInBothThemes(page);

    await page.getByRole('button', { name: 'History' }).click();
    const entries = page.getByRole('region', { name: 'History' }).locator('.history-entry');
    await entries.nth(1).waitFor();
    await entries.first().getByRole('checkbox').check();
    await entries.last().getByRole('checkbox').check();
    await page.getByRole('region', { name: 'Differences' }).locator('[data-field="title"]').waitFor();
    await expectAccessibleInBothThemes(page);
    await page.getByRole('button', { name: 'History' }).click();

    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.frameLocator('iframe').getByRole('heading', { name: 'The front end' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.getByRole('button', { name: 'Preview', exact: true }).click();

    await page.getByText('Schedule…').click();
    await page.getByText('Preview links').click();
    await page.getByRole('button', { name: 'Create preview link' }).click();
    await page.getByRole('list', { name: 'Live preview links' }).getByRole('listitem').first().waitFor();
    await expectAccessibleInBothThemes(page);

    // The draft changed on the server (an API key) while the form held other changes.
    await page.getByRole('textbox', { name: 'Category', exact: true }).fill('Harbour');
    await api(ctx, `/article/${article.cmsDocId}?cmsLocale=en&cmsMode=draft`, { method: 'PATCH', body: { category: 'Lighthouse' } });
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('dialog', { name: 'This document changed while you edited it' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.keyboard.press('Escape');
  });

  it('shows the media library, an image’s details, the crop dialog, the users and the audit screens', async () => {
    await page.goto('/admin/media');
    await page.getByRole('button', { name: 'lighthouse' }).click();
    await page.getByRole('button', { name: 'Crop', exact: true }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.getByRole('button', { name: 'Crop', exact: true }).click();
    const crop = page.getByRole('dialog', { name: 'Crop image' });
    await crop.waitFor();
    await expectAccessibleInBothThemes(page);
    await page.keyboard.press('Escape');
    await crop.waitFor({ state: 'hidden' });

    await page.goto('/admin/users');
    await page.getByRole('row').filter({ hasText: 'ada' }).waitFor();
    await expectAccessibleInBothThemes(page);
    await page.getByRole('button', { name: 'New user' }).click();
    await page.getByRole('form', { name: 'New user' }).waitFor();
    await expectAccessibleInBothThemes(page);

    await page.goto('/admin/audit');
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await page.locator('table tbody tr').first().waitFor();
    await expectAccessibleInBothThemes(page);
  });
});
