import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { packageRoot } from '../helpers/typecheck.js';
import { browserSkipReason, collectApiRequests, screenshot } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite } from '../helpers/admin-app.js';
import { eventually } from './flow-support.js';

/*
 * Live preview end to end: the editor's Preview pane frames a test front end on another origin,
 * which imports the CMS's helper (`/api/v1/@cms/live-preview.js`) and renders the draft's title,
 * first from the server (reading the draft with the URL's preview link), then from each document
 * the admin posts. A note's preview URL redirects to a third origin: it must hear nothing.
 */

/** A small HTTP server on a free loopback port; answers its base URL. */
async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => void Promise.resolve(handler(request, response)).catch((error: Error) => response.writeHead(500).end(error.message)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The minimal page of the guide, as written: its one html block. */
async function guidePage(): Promise<string> {
  const guide = await readFile(join(packageRoot, 'docs/guides/live-preview.md'), 'utf8');
  const page = /```html\n([\s\S]*?)```/.exec(guide)?.[1];
  assert.ok(page, 'the guide has an html block');
  return page;
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

describe('admin: live preview of the draft in a front end on another origin', { skip: browserSkipReason }, () => {
  let cmsBase = '';
  /** Pages the front end rendered on the server, with the title it read. */
  const rendered: string[] = [];

  // The front end: renders the draft it reads with the preview link, then follows the admin's messages.
  let frontEnd: { server: Server; base: string };
  // A third origin the note's preview redirects to: records every message it gets.
  let elsewhere: { server: Server; base: string };
  before(async () => {
    frontEnd = await listen(async (request, response) => {
      const url = new URL(request.url!, 'http://front.end');
      // The guide's page, its CMS (http://localhost:3000 there) the test's.
      if (url.pathname === '/preview.html') {
        return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end((await guidePage()).replaceAll('http://localhost:3000', cmsBase));
      }
      if (url.pathname === '/redirect') return void response.writeHead(302, { location: `${elsewhere.base}/record` }).end();
      const shareId = url.searchParams.get('cmsShareId') ?? '';
      const read = `${cmsBase}/api/v1/article/${encodeURIComponent(shareId)}?${new URLSearchParams({ cmsShareId: shareId, cmsShareKey: url.searchParams.get('cmsShareKey') ?? '' })}`;
      const draft = await fetch(read);
      const title = draft.ok ? ((await draft.json()) as { title: string }).title : `no draft (${draft.status})`;
      rendered.push(title);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><title>Front end</title>
<h1 id="title">${escapeHtml(title)}</h1><p id="source">server</p>
<script type="module">
  import { subscribeToLivePreview } from '${cmsBase}/api/v1/@cms/live-preview.js';
  subscribeToLivePreview({ origin: '${cmsBase}', onChange: (doc) => {
    document.getElementById('title').textContent = doc.title;
    document.getElementById('source').textContent = 'live';
  } });
</script></html>`);
    });
    elsewhere = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><title>Elsewhere</title><p>elsewhere</p>
<script>
  window.received = [];
  window.addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));
  // Asks as the helper would, to anyone: the admin must not answer another origin.
  window.parent.postMessage({ type: 'cms:live-preview-ready' }, '*');
  window.ready = true;
</script></html>`);
    });
  });
  after(async () => {
    await new Promise((resolve) => frontEnd?.server.close(resolve));
    await new Promise((resolve) => elsewhere?.server.close(resolve));
  });

  /** Articles previewed by a template on the front end; notes by a function whose URL redirects to a third origin. */
  function liveConfig(): Record<string, unknown> {
    const config = adminTestConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
    config.modules.article!.options.preview = { url: `${frontEnd.base}/articles/{slug}?locale={locale}` };
    config.modules.event!.options.preview = { url: `${frontEnd.base}/preview.html?slug={slug}&locale={locale}` };
    config.modules.note!.options.preview = { url: (doc: { slug: string }) => `${frontEnd.base}/redirect?slug=${doc.slug}` };
    return config;
  }
  // The config needs the front ends' ports: read when the suite starts, after `before` above.
  const suite = signedInAdminSuite('previewer', 'Lee Live', liveConfig);

  const previewFrame = async (page: Page, origin: string): Promise<Frame> => {
    let found: Frame | undefined;
    await eventually(() => {
      found = page.frames().find((frame) => frame.url().startsWith(origin));
      assert.ok(found, `a frame on ${origin}`);
    });
    return found!;
  };

  it('shows what the editor types within a second, before any save, and the saved draft after the save', async () => {
    const { page, site } = suite;
    cmsBase = site.baseUrl;
    const created = await site.t.request('POST', '/api/v1/article', { body: { title: 'Stored Title' } });
    assert.equal(created.status, 200, created.text);
    const draftId = `${created.body.cmsDocId}:en:draft`;
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`/admin/types/article/${created.body.cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const frame = await previewFrame(page, frontEnd.base);
    // The server rendered the draft read with the URL's preview link; the helper then got the current document.
    await eventually(async () => assert.equal(await frame.locator('#source').innerText(), 'live'));
    assert.equal(rendered.at(-1), 'Stored Title');

    const requests = collectApiRequests(page);
    const started = Date.now();
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Typed Live Title');
    await eventually(async () => assert.equal(await frame.locator('#title').innerText(), 'Typed Live Title'), 1000);
    const took = Date.now() - started;
    assert.ok(took < 1000, `shown after ${took} ms`);
    // Before any save: no write was sent, the stored draft has the old title.
    assert.deepEqual(requests.requests.filter((line) => !line.startsWith('GET ')), []);
    assert.equal((await site.t.request('GET', `/api/v1/article/${draftId}`)).body.title, 'Stored Title');

    // Widths, and the link to open the preview in a tab.
    await page.getByRole('button', { name: 'Phone' }).click();
    assert.equal(await page.locator('iframe.preview-frame').evaluate((element) => (element as HTMLElement).style.width), '375px');
    await page.getByRole('button', { name: 'Desktop' }).click();
    const href = await page.getByRole('link', { name: 'Open in new tab' }).getAttribute('href');
    assert.ok(href?.startsWith(`${frontEnd.base}/articles/`) && href.includes('cmsShareKey='), href ?? '');
    await screenshot(page, 'admin-editor-live-preview');

    // A save reloads the frame: the front end renders the saved draft on the server.
    const renders = rendered.length;
    await page.getByRole('button', { name: 'Save draft' }).click();
    await eventually(() => assert.ok(rendered.length > renders, 'rendered again'));
    assert.equal(rendered.at(-1), 'Typed Live Title');
    assert.equal((await site.t.request('GET', `/api/v1/article/${draftId}`)).body.title, 'Typed Live Title');
  });

  it('posts nothing to a page on another origin than the preview URL\'s, and answers none of its messages', async () => {
    const { page, site } = suite;
    const note = await site.t.request('POST', '/api/v1/note', { body: { title: 'Redirected Note' } });
    assert.equal(note.status, 200, note.text);
    await page.goto(`/admin/types/note/${note.body.cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const frame = await previewFrame(page, elsewhere.base);
    await eventually(async () => assert.equal(await frame.evaluate(() => (window as unknown as { ready?: boolean }).ready), true));
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Secret Draft Title');
    // Longer than the throttle and the round trip of a ready answer.
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(await frame.evaluate(() => (window as unknown as { received: unknown[] }).received), []);
  });

  it('the guide\'s minimal page shows the saved draft, then what the editor types', async () => {
    const { page, site } = suite;
    const event = await site.t.request('POST', '/api/v1/event', { body: { title: 'Guide Event', startDate: '2030-05-01', location: 'Hall A' } });
    assert.equal(event.status, 200, event.text);
    await page.goto(`/admin/types/event/${event.body.cmsDocId}?locale=en`);
    await page.getByRole('button', { name: 'Save draft' }).waitFor();
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const frame = await previewFrame(page, `${frontEnd.base}/preview.html`);
    await eventually(async () => assert.equal(await frame.locator('#title').innerText(), 'Guide Event'));
    assert.equal(await frame.locator('#location').innerText(), 'Hall A');
    await page.getByRole('textbox', { name: 'Location', exact: true }).fill('Hall B');
    await eventually(async () => assert.equal(await frame.locator('#location').innerText(), 'Hall B'), 1000);
  });
});
