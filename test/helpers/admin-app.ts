import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { keys, testConfig } from './test-app.js';
import { openPage, startBrowserApp, type BrowserApp } from './browser.js';

/**
 * The configuration the admin's browser tests run against: the demo's piece types (article with
 * tags, an author, a rich-text and image area; event with a required date; note) plus `playlist`,
 * whose `tracks` array holds a thousand items in the typing-lag test.
 */
export function adminTestConfig(): Record<string, unknown> {
  const base = testConfig();
  return {
    ...base,
    modules: {
      article: {
        extend: '@cms/piece-type',
        options: { label: 'Article', perPage: 10, publicApiProjection: { title: 1, slug: 1, category: 1, _url: 1, _author: 1, _heroImage: 1, body: 1 }, pagePath: '/articles' },
        fields: {
          add: {
            category: { type: 'string' },
            priority: { type: 'integer', min: 0, max: 100 },
            tags: {
              type: 'checkboxes',
              choices: [
                { label: 'News', value: 'news' },
                { label: 'Tech', value: 'tech' },
                { label: 'Sports', value: 'sports' },
              ],
            },
            _author: { type: 'relationship', withType: '@cms/user' },
            _related: { type: 'relationship', withType: 'article', max: 3 },
            _heroImage: { type: 'relationship', withType: '@cms/image', max: 1 },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, '@cms/image': {} } } },
          },
        },
      },
      event: {
        extend: '@cms/piece-type',
        options: { label: 'Event', pagePath: '/events', publicApiProjection: { title: 1, slug: 1, startDate: 1, location: 1, _url: 1 } },
        fields: {
          add: {
            startDate: { type: 'date', required: true },
            location: { type: 'string' },
            capacity: { type: 'integer', min: 0 },
            ticketUrl: { type: 'url' },
          },
        },
      },
      note: {
        extend: '@cms/piece-type',
        options: { label: 'Note' },
        fields: { add: { text: { type: 'string', textarea: true } } },
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

export interface AdminTestSite extends BrowserApp {
  /** Creates a user through the API (admin key); answers its draft `_id`. */
  createUser(user: { username: string; password: string; role: string; title?: string }): Promise<string>;
}

export async function startAdminSite(): Promise<AdminTestSite> {
  const app = await startBrowserApp({ config: adminTestConfig() });
  return {
    ...app,
    async createUser({ username, password, role, title }) {
      const created = await app.t.request('POST', '/api/v1/@cms/user', { body: { title: title ?? username, username, password, role } });
      assert.equal(created.status, 200, created.text);
      return created.body._id as string;
    },
  };
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
