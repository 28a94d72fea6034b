import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  browserSkipReason,
  collectApiRequests,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openPage,
  screenshot,
  startBrowserApp,
  type ApiRequestLog,
  type BrowserApp,
} from '../helpers/browser.js';

const shell = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Sign in</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/admin/assets/app-1a2b.css">
  <script type="module" src="/admin/assets/app-1a2b.js"></script>
</head>
<body>
  <main>
    <h1>Sign in</h1>
    <form>
      <label for="username">Username</label>
      <input id="username" name="username" autocomplete="username">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password">
      <button type="submit">Sign in</button>
    </form>
    <p id="articles">Loading…</p>
  </main>
</body>
</html>`;

// The shell's one script: a single API call, as a screen of the admin would make.
const script = `
const answer = await fetch('/api/v1/article').then((response) => response.json());
document.querySelector('#articles').textContent = answer.results.length + ' articles';
`;
const styles = 'body { font-family: sans-serif; margin: 2rem } label, input, button { display: block; margin: 0.5rem 0 }';

/** A stand-in for the admin's build: a labelled sign-in form, its script and styles. */
async function fakeAdmin(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-browser-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), shell);
  await writeFile(join(dir, 'assets', 'app-1a2b.js'), script);
  await writeFile(join(dir, 'assets', 'app-1a2b.css'), styles);
  return dir;
}

describe('the browser test harness', { skip: browserSkipReason }, () => {
  let adminDir: string;
  let app: BrowserApp;
  let browser: Browser;
  let page: Page;
  let api: ApiRequestLog;
  const pageErrors: string[] = [];

  before(async () => {
    adminDir = await fakeAdmin();
    app = await startBrowserApp({ adminDir });
    browser = await launchBrowser();
    page = await openPage(browser, app.baseUrl);
    api = collectApiRequests(page);
    // A script the CSP blocks, one that throws, or a file the server does not have shows up here.
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => response.status() >= 400 && pageErrors.push(`${response.status()} ${response.url()}`));
  });
  after(async () => {
    await browser?.close();
    await app?.t.close();
    await rm(adminDir, { recursive: true, force: true });
  });

  it('loads the shell from the server, runs its script under the CSP and records its API requests', async () => {
    await page.goto('/admin/sign-in');
    await page.getByText('0 articles').waitFor();
    assert.deepEqual(api.requests, ['GET /api/v1/article']);
    assert.deepEqual(pageErrors, []);
    api.clear();
    assert.deepEqual(api.requests, []);
  });

  it('saves a screenshot as a PNG file', async () => {
    const file = await screenshot(page, 'harness-sign-in');
    const bytes = await readFile(file);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('passes the axe check on a labelled form, and fails it naming the rule and the element when an input has no label', async () => {
    await expectNoSeriousA11yViolations(page);
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.id = 'unlabelled';
      document.querySelector('form')!.append(input);
    });
    await assert.rejects(expectNoSeriousA11yViolations(page), (error: Error) => {
      assert.match(error.message, /label/);
      assert.match(error.message, /#unlabelled/);
      return true;
    });
  });
});
