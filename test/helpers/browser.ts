import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from './test-app.js';

/**
 * Browser tests drive the Chromium of the Debian package (`apt-get install chromium`), never a
 * browser downloaded by Playwright: playwright-core only speaks to the one installed here.
 */
export const chromiumPath = process.env.CMS_CHROMIUM || '/usr/bin/chromium';

/** Why browser tests cannot run on this machine, or undefined when they can: node:test's `skip` option. */
export const browserSkipReason: string | undefined = existsSync(chromiumPath)
  ? undefined
  : `Chromium not found at ${chromiumPath}: browser tests skipped; apt-get install chromium`;

// No sandbox: CI runs as root, where Chromium's sandbox refuses to start. The rest keep the
// browser from reaching the network on its own (updates, sync, QUIC probes) or waiting on a GPU.
const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (browserSkipReason) throw new Error(browserSkipReason);
  return chromium.launch({ executablePath: chromiumPath, args: launchArgs });
}

export interface BrowserApp {
  readonly t: TestApp;
  /** `http://127.0.0.1:<port>`: where pages load from. */
  readonly baseUrl: string;
  /** The server's log lines (warnings and above), such as the first-run setup code. */
  readonly logLines: readonly string[];
}


/**
 * A real app listening on loopback, on a fresh store in a temporary directory (or the one `env`'s
 * CMS_DATA_DIR names, filled before). Its `baseUrl` is relative, so the origin the browser uses is
 * the server's own for the CSRF origin check.
 */
export async function startBrowserApp(options: { config?: Record<string, unknown>; adminDir?: string; env?: Record<string, string> } = {}): Promise<BrowserApp> {
  const config = { ...(options.config ?? testConfig()), baseUrl: '' };
  const logLines: string[] = [];
  const t = await startTestApp(config, { CMS_LOG_LEVEL: 'warn', ...options.env }, {
    adminDir: options.adminDir,
    passwordHasher: cheapPasswordHasher(),
    logStream: { write: (line) => void logLines.push(line) },
  });
  const port = await t.listen();
  return { t, baseUrl: `http://127.0.0.1:${port}`, logLines };
}

/** A page in a context of its own (cookies, storage) whose relative URLs go to `baseUrl`. */
export async function openPage(browser: Browser, baseUrl: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl });
  return context.newPage();
}

/** Where screenshots go: `dist/screenshots/`, or `CMS_SCREENSHOT_DIR`. */
export const screenshotDir = process.env.CMS_SCREENSHOT_DIR || fileURLToPath(new URL('../../screenshots', import.meta.url));

/** Saves the whole page as `<name>.png` in `screenshotDir`, for a person to look at; returns the file. */
export async function screenshot(page: Page, name: string): Promise<string> {
  assert.match(name, /^[\w.-]+$/, 'a screenshot name is a plain file name');
  await mkdir(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name}.png`);
  // From the top, so that sticky headers sit where a reader expects them in a full-page picture.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

interface Violation {
  readonly id: string;
  readonly impact: string | null | undefined;
  readonly help: string;
  readonly targets: string[];
}

/**
 * axe-core's violations on the page as it is now, in every frame, through @axe-core/playwright's
 * AxeBuilder: it injects axe through the debugger, so the page's CSP does not block it.
 */
async function axeViolations(page: Page): Promise<Violation[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/** Fails on any serious or critical axe-core violation, naming each rule and the elements that break it. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  const serious = (await axeViolations(page)).filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  const described = serious.map((violation) => `${violation.id} (${violation.impact}: ${violation.help}) at ${violation.targets.join(', ')}`);
  assert.deepEqual(described, [], `serious accessibility violations on ${page.url()}:\n${described.join('\n')}`);
}

/** The API requests a page made, as `METHOD /path?query`, in order. */
export interface ApiRequestLog {
  readonly requests: readonly string[];
  /** Forgets the requests so far: count those of the next step alone. */
  clear(): void;
}

/** Records every request the page makes under `/api/` from now on (for "a list screen makes at most two API requests"). */
export function collectApiRequests(page: Page): ApiRequestLog {
  const requests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) requests.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  return { requests, clear: () => void requests.splice(0) };
}
