import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchBrowser, openPage, startBrowserApp, type BrowserApp } from '../helpers/browser.js';

describe('/docs in a browser', { skip: browserSkipReason }, () => {
  let browser: Browser;
  let server: BrowserApp;
  before(async () => {
    server = await startBrowserApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.t.close();
  });

  it('renders the operations of the document under its CSP, loading nothing from another host', async () => {
    const page = await openPage(browser, server.baseUrl);
    const elsewhere: string[] = [];
    const refusals: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== server.baseUrl && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refusals.push(message.text());
    });
    await page.goto('/docs');
    // One block per operation of the anonymous caller's document: the public article routes among them.
    await page.locator('.opblock').first().waitFor();
    assert.ok((await page.locator('.opblock').count()) > 20);
    await page.getByText('/api/v1/article/{_id}/publish').first().waitFor();
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(refusals, []);
  });

  it('runs "Try it out" on a list route with the parameters as Swagger fills them: 200 with results', async () => {
    const page = await openPage(browser, server.baseUrl);
    await page.goto('/docs');
    const list = page.locator('[id^="operations-article-listArticle"]');
    await list.locator('.opblock-summary').click();
    await list.getByRole('button', { name: 'Try it out' }).click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const status = list.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    assert.equal((await status.innerText()).trim(), '200');
    const body = await list.locator('.live-responses-table tr.response .response-col_description pre').first().innerText();
    assert.ok(Array.isArray(JSON.parse(body).results), body.slice(0, 200));
  });
});
