import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkipReason, expectNoSeriousA11yViolations, launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { adminApiKey, adminPassword as password, setupCode, signedInPage, startAdminSite, type AdminTestSite } from '../helpers/admin-app.js';
import { api, eventually } from './flow-support.js';

/**
 * An editor's first day, as the issue describes it: the first admin created with the logged setup
 * code, an article with rich text, an uploaded and cropped image and a relationship, a validation
 * error beside its field, save, publish, the published article read anonymously, localized,
 * archived and restored, and a contributor who sees no Publish button and cannot publish. Each
 * step builds on the one before. Screenshots of the main screens go to dist/screenshots.
 */
type Crop = { top: number; left: number; width: number; height: number };
type Doc = { _id: string; cmsDocId: string; title: string; archived: boolean; [field: string]: unknown };

const crop: Crop = { top: 60, left: 80, width: 400, height: 300 };

async function answerDialog(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

describe('admin: from the first sign-in to a published, localized article', { skip: browserSkipReason }, () => {
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  let articleId: string;
  let image: Doc;
  const ctx = () => ({ baseUrl: site.baseUrl, apiKey: adminApiKey });

  before(async () => {
    site = await startAdminSite();
    browser = await launchBrowser();
    page = await openPage(browser, site.baseUrl);
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });

  it('offers the first admin to whoever has the setup code from the log, and signs them in', async () => {
    await page.goto('/admin/');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('link', { name: 'Create the first admin' }).click();
    await page.getByRole('heading', { name: 'Create the first admin' }).waitFor();
    await page.getByLabel('Setup code').fill(setupCode(site.logLines));
    await page.getByLabel('Username').fill('rita');
    await page.getByLabel('Display name').fill('Rita Root');
    await page.getByLabel('Password').fill(password);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-first-run');
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    const users = await api<{ results: Doc[] }>(ctx(), '/@cms/user?cmsMode=draft');
    assert.deepEqual(users.results.map((user) => [user.username, user.role]), [['rita', 'admin']]);
    await screenshot(page, 'admin-home');
  });

  it('refuses an article with a priority over its maximum, beside the Priority field', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' }).click();
    await page.getByRole('link', { name: 'New Article' }).click();
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Harbour at dawn');
    const priority = page.getByLabel('Priority', { exact: true });
    await priority.fill('500');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await eventually(async () => assert.equal(await priority.getAttribute('aria-invalid'), 'true'));
    const errorId = ((await priority.getAttribute('aria-describedby')) ?? '').split(' ').find((id) => id.endsWith('-error'));
    assert.ok(errorId, 'the error is tied to the input');
    assert.match(await page.locator(`[id="${errorId}"]`).innerText(), /100/);
    assert.match(new URL(page.url()).pathname, /\/new$/, 'nothing was saved');
    await screenshot(page, 'admin-editor-error');
    await priority.fill('5');
  });

  it('writes rich text, uploads an image from the field, picks an author, and saves a draft', async () => {
    await page.getByRole('button', { name: 'Add content to Body' }).click();
    await page.getByRole('menuitem', { name: 'Rich Text' }).click();
    await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).click();
    await page.keyboard.type('The boats come in ');
    await page.getByRole('toolbar', { name: 'Body: Rich Text 1 formatting' }).getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type('before six');

    await page.getByRole('button', { name: 'Browse media for Hero Image' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose an image' });
    await picker.waitFor();
    const harbour = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#1d6fa5' } }).png().toBuffer();
    await picker.getByLabel('Upload files').setInputFiles([{ name: 'harbour.png', mimeType: 'image/png', buffer: harbour }]);
    await picker.getByRole('list', { name: 'Uploads' }).getByText('Done').waitFor();
    await picker.getByRole('button', { name: 'Choose', exact: true }).click();
    await picker.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Remove harbour' }).waitFor();

    const author = page.getByRole('combobox', { name: 'Author' });
    await author.fill('Rita');
    await page.getByRole('option', { name: 'Rita Root' }).click();
    await page.getByRole('button', { name: 'Remove Rita Root' }).waitFor();

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/new'));
    await page.getByText('Draft only', { exact: true }).waitFor();
    articleId = new URL(page.url()).pathname.split('/').pop()!;
    const draft = await api<Doc>(ctx(), `/article/${articleId}?cmsMode=draft`);
    assert.equal(draft.title, 'Harbour at dawn');
    assert.equal(draft.priority, 5);
    const items = (draft.body as { items: { type: string; content: string }[] }).items;
    assert.deepEqual(items.map((item) => item.type), ['@cms/rich-text']);
    assert.match(items[0]!.content, /The boats come in <strong>before six<\/strong>/);
    image = (draft._heroImage as Doc[])[0]!;
    assert.equal(image.title, 'harbour');
    assert.deepEqual((draft._author as Doc[]).map((user) => user.title), ['Rita Root']);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-editor');
  });

  it('crops the uploaded image in the media library', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('button', { name: 'harbour' }).click();
    await page.getByRole('button', { name: 'Crop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Crop image' });
    await dialog.waitFor();
    for (const [label, value] of [['Width', crop.width], ['Height', crop.height], ['Top', crop.top], ['Left', crop.left]] as const) {
      await dialog.getByLabel(label, { exact: true }).fill(String(value));
      await dialog.getByLabel(label, { exact: true }).press('Tab');
    }
    await screenshot(page, 'admin-crop');
    await dialog.getByRole('button', { name: 'Apply crop' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => {
      const piece = await api<{ attachment: { crop: Crop } }>(ctx(), `/@cms/image/${image.cmsDocId}`);
      assert.deepEqual(piece.attachment.crop, crop);
    });
    await screenshot(page, 'admin-media');
  });

  it('publishes the article, which anyone then reads over the API with its cropped image', async () => {
    await page.goto(`/admin/types/article/${articleId}`);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published', { exact: true }).first().waitFor();

    const anonymous = await fetch(`${site.baseUrl}/api/v1/article/${articleId}`);
    assert.equal(anonymous.status, 200);
    const published = (await anonymous.json()) as Doc;
    assert.equal(published.title, 'Harbour at dawn');
    assert.equal('priority' in published, false, 'the public projection applies');
    assert.deepEqual(published._author, [], 'users are not public: anonymous readers get no author');
    assert.deepEqual((published._heroImage as Doc[]).map((piece) => piece.title), ['harbour']);
    assert.match((published.body as { items: { content: string }[] }).items[0]!.content, /before six/);
    const src = await fetch(`${site.baseUrl}/api/v1/@cms/image/${image.cmsDocId}/src`, { redirect: 'manual' });
    assert.equal(src.status, 302);
    assert.match(src.headers.get('location') ?? '', new RegExp(`\\.${crop.top}\\.${crop.left}\\.${crop.width}\\.${crop.height}\\.`));
  });

  it('localizes the article to Spanish, with its image ticked among the related documents', async () => {
    await page.getByLabel('Locale').selectOption('es');
    await page.getByRole('heading', { name: 'Not yet in Español' }).waitFor();
    const related = page.getByRole('group', { name: 'Related documents not in Español either' });
    assert.equal(await related.getByLabel('harbour').isChecked(), true, 'the hero image goes with it');
    await screenshot(page, 'admin-localize');
    await page.getByRole('button', { name: 'Localize from English' }).click();
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await eventually(async () => {
      assert.equal((await api<Doc>(ctx(), `/article/${articleId}?cmsLocale=es&cmsMode=draft`)).title, 'Harbour at dawn');
      assert.equal((await api<Doc>(ctx(), `/@cms/image/${image.cmsDocId}?cmsLocale=es&cmsMode=draft`)).title, 'harbour');
    });
    await page.getByLabel('Locale').selectOption('en');
    await page.getByText('Published', { exact: true }).first().waitFor();
  });

  it('archives and restores the article', async () => {
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Restore' }).waitFor();
    const archived = await fetch(`${site.baseUrl}/api/v1/article/${articleId}`);
    assert.equal(archived.status, 404, 'an archived article is gone for anonymous readers');
    await archived.body?.cancel();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('button', { name: 'Archive' }).waitFor();
    assert.equal((await fetch(`${site.baseUrl}/api/v1/article/${articleId}`)).status, 200);
    await page.goto('/admin/types/article');
    await page.getByRole('link', { name: 'Harbour at dawn' }).waitFor();
    await screenshot(page, 'admin-list');
  });

  it('signs out, which ends the session on the server: its cookie no longer works anywhere', async () => {
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name.endsWith('cms.sid'));
    assert.ok(session, `a session cookie: ${cookies.map((cookie) => cookie.name).join(', ')}`);
    const whoamiWith = (cookie: string) => fetch(`${site.baseUrl}/api/v1/@cms/login/whoami`, { headers: { cookie } });
    assert.equal((await whoamiWith(`${session.name}=${session.value}`)).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    assert.equal((await whoamiWith(`${session.name}=${session.value}`)).status, 404, 'a copy of the old cookie is anonymous');
    await page.goto('/admin/types/article');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  });

  it('shows a contributor no Publish button, and the server refuses their publish', async () => {
    await site.createUser({ username: 'carl', password, role: 'contributor', title: 'Carl Contributor' });
    const contributor = await signedInPage(browser, site.baseUrl, 'carl', password);
    try {
      await contributor.goto(`/admin/types/article/${articleId}`);
      await contributor.getByRole('button', { name: 'Save draft' }).waitFor();
      assert.equal(await contributor.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
      assert.equal(await contributor.getByRole('button', { name: 'Unpublish' }).count(), 0);
      // The page's own session, with its CSRF token: the refusal comes from the role, not the CSRF check.
      const refused = await contributor.evaluate(async (id) => {
        const who = await (await fetch('/api/v1/@cms/login/whoami')).json();
        const answer = await fetch(`/api/v1/article/${id}/publish`, { method: 'POST', headers: { 'X-CSRF-Token': who.csrfToken } });
        return { status: answer.status, body: await answer.json() };
      }, articleId);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.name, 'forbidden');
      await screenshot(contributor, 'admin-editor-contributor');
    } finally {
      await contributor.context().close();
    }
  });
});
