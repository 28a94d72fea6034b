import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { keys, testConfig } from './test-app.js';
import { demoConfig } from '../../src/config/demo-config.js';
import { launchBrowser, openPage, startBrowserApp, type BrowserApp } from './browser.js';

/**
 * The configuration the admin's browser tests run against: the demo's piece types (article with
 * tags, an author, a rich-text and image area; event with a required date; note), with articles
 * also relating to other articles and to a hero image (public, like the body), a priority of
 * at most 100 and an accent colour, plus `playlist`, whose `tracks` array holds a thousand items in the typing test.
 */
export function adminTestConfig(): Record<string, unknown> {
  const { article, ...otherTypes } = demoConfig.modules;
  return {
    ...testConfig(),
    modules: {
      ...otherTypes,
      article: {
        ...article,
        options: { ...article.options, publicApiProjection: { ...article.options.publicApiProjection, _heroImage: 1, body: 1 } },
        fields: {
          add: {
            ...article.fields.add,
            priority: { type: 'integer', min: 0, max: 100 },
            accent: { type: 'color' },
            _related: { type: 'relationship', withType: 'article', max: 3 },
            _heroImage: { type: 'relationship', withType: '@cms/image', max: 1 },
          },
        },
      },
      playlist: {
        extend: '@cms/piece-type',
        options: { label: 'Playlist' },
        fields: {
          add: {
            tracks: {
              type: 'array',
              fields: { add: { title: { type: 'string', required: true }, seconds: { type: 'integer', min: 0 } } },
            },
          },
        },
      },
    },
  };
}

export const adminApiKey = keys.admin;
/** The password of every user the browser tests make. */
export const adminPassword = 'correct horse battery';

export interface AdminTestSite extends BrowserApp {
  /** Creates a user through the API (admin key); answers its draft `_id`. */
  createUser(user: { username: string; password: string; role: string; title?: string }): Promise<string>;
}

/** `env` reaches the server (CMS_DATA_DIR: a store filled before it starts). */
export async function startAdminSite(config: Record<string, unknown> = adminTestConfig(), env?: Record<string, string>): Promise<AdminTestSite> {
  const app = await startBrowserApp({ config, env });
  return {
    ...app,
    async createUser({ username, password, role, title }) {
      const created = await app.t.request('POST', '/api/v1/@cms/user', { body: { title: title ?? username, username, password, role } });
      assert.equal(created.status, 200, created.text);
      return created.body._id as string;
    },
  };
}

/** The first-run setup code the server logged at its start (`site.logLines`). */
export function setupCode(lines: readonly string[]): string {
  const match = lines.map((line) => /setup code ([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})/.exec(line)).find(Boolean);
  assert.ok(match, `no setup code in the log:\n${lines.join('')}`);
  return match[1]!;
}

/** Signs in through the admin's form in a fresh browser context; answers the page on the content screen. */
export async function signedInPage(browser: Browser, baseUrl: string, username: string, password: string): Promise<Page> {
  const page = await openPage(browser, baseUrl);
  await page.goto('/admin/sign-in');
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
  return page;
}

/** What a browser suite works with: its site, its browser, a page signed in as an admin, the API context of flows. */
export interface SignedInSuite {
  readonly site: AdminTestSite;
  readonly browser: Browser;
  readonly page: Page;
  readonly ctx: { readonly baseUrl: string; readonly apiKey: string };
}

/**
 * Registers, in the calling `describe`, a site and a browser started before its tests with an
 * admin `username` signed in through the form, and both closed after them. Read the answer's
 * properties inside the tests (they are set by then). `config` replaces `adminTestConfig()`; a
 * function is called when the site starts (a configuration naming servers the suite starts first).
 */
export function signedInAdminSuite(username: string, title?: string, config?: Record<string, unknown> | (() => Record<string, unknown>)): SignedInSuite {
  let site: AdminTestSite;
  let browser: Browser;
  let page: Page;
  before(async () => {
    site = await startAdminSite(typeof config === 'function' ? config() : config);
    browser = await launchBrowser();
    await site.createUser({ username, password: adminPassword, role: 'admin', title });
    page = await signedInPage(browser, site.baseUrl, username, adminPassword);
  });
  after(async () => {
    await browser?.close();
    await site?.t.close();
  });
  return {
    get site() { return site; },
    get browser() { return browser; },
    get page() { return page; },
    get ctx() { return { baseUrl: site.baseUrl, apiKey: adminApiKey }; },
  };
}
