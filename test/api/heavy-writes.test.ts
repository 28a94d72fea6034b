import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';
import { limitDefinitions } from '../../src/config/limits.js';

const documentBytes = limitDefinitions.documentBytes.default;
const stringLength = limitDefinitions.stringLength.default;

/**
 * Polls `/health` from a worker thread, over its own connection, every 50 ms until told to stop;
 * answers each poll's time (a poll that gets no answer within 5 s counts as 5 s).
 */
const pollerSource = `
const { parentPort, workerData } = require('node:worker_threads');
let stop = false;
parentPort.once('message', () => { stop = true; });
(async () => {
  const times = [];
  while (!stop) {
    const start = performance.now();
    try {
      const res = await fetch(workerData + '/health', { signal: AbortSignal.timeout(5000) });
      await res.text();
      times.push(res.status === 200 ? performance.now() - start : 5000);
    } catch {
      times.push(5000);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  parentPort.postMessage(times);
})();
`;

/** Runs `work` while `/health` is polled; answers its result, how long it took, and the polls' times. */
async function whilePolled<T>(base: string, work: () => Promise<T>): Promise<{ result: T; ms: number; polls: number[] }> {
  const poller = new Worker(pollerSource, { eval: true, workerData: base });
  const polled = new Promise<number[]>((resolve) => poller.once('message', resolve));
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  poller.postMessage('stop');
  const polls = await polled;
  await poller.terminate();
  return { result, ms, polls };
}

function assertResponsive(label: string, polls: readonly number[]): void {
  assert.ok(polls.length > 0, `${label}: /health was polled`);
  const slowest = Math.max(...polls);
  assert.ok(slowest < 1000, `${label}: /health answered within 1 s each time (slowest: ${Math.round(slowest)} ms)`);
}

// Rich text as slow to sanitize as any per character that keeps its size: tags, few words.
const costlyUnit = '<p><b>bold</b> <i>it</i></p>';

function costlyHtml(characters: number, prefix: string): string {
  return prefix + costlyUnit.repeat(Math.floor((characters - prefix.length) / costlyUnit.length));
}

describe('One contributor cannot hold the event loop (limits.documentBytes)', () => {
  let t: TestApp;
  let base: string;
  const contributor = { authorization: `ApiKey ${keys.contributor}`, 'content-type': 'application/json' };

  async function send(method: 'POST' | 'PATCH', path: string, body: unknown) {
    const res = await fetch(base + path, { method, headers: contributor, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function articleCount(): Promise<number> {
    const list = await t.request('GET', '/api/v1/article?cmsMode=draft&archived=any&count=1', { key: 'admin' });
    assert.equal(list.status, 200);
    return list.body.count;
  }

  before(async () => {
    t = await startTestApp();
    base = `http://127.0.0.1:${await t.listen()}`;
    // What happens once per process is not what is measured: the first rich text big enough for a
    // thread starts it, and the test's answer check (openapi-recorder) compiles each route's schema
    // on its first answer, on this same event loop, for hundreds of milliseconds.
    const warm = await send('POST', '/api/v1/article?cmsMode=draft', { title: 'Warm', body: { items: [{ type: '@cms/rich-text', content: costlyHtml(20_000, '<p>w</p>') }] } });
    assert.equal(warm.status, 200);
    assert.equal((await send('PATCH', `/api/v1/article/${warm.body._id}?cmsMode=draft`, { title: 'Warmer' })).status, 200);
  });
  after(() => t.close());

  it("keeps /health answering through a contributor's largest draft and a 1,000-operation PATCH of it", async () => {
    // The largest area the limits let a draft keep: stored with its search texts, just under documentBytes.
    // (About a tenth of the cap each: the version also holds two plain-text copies for search.)
    const widgetHtml = Math.floor(documentBytes * 0.1025);
    const items = Array.from({ length: 6 }, (_, i) => ({ type: '@cms/rich-text', content: costlyHtml(widgetHtml, `<p>${i}</p>`) }));
    const created = await whilePolled(base, () => send('POST', '/api/v1/article?cmsMode=draft', { title: 'Largest', body: { items } }));
    assert.equal(created.result.status, 200, JSON.stringify(created.result.body).slice(0, 300));
    assertResponsive('POST of the largest draft', created.polls);
    const stored = await t.request('GET', `/api/v1/article/${created.result.body._id}?cmsMode=draft`, { key: 'admin' });
    assert.ok(stored.text.length > documentBytes * 0.8, `the draft is close to the cap (${stored.text.length} bytes)`);

    // 1,000 operations, each comparing against every widget of the area.
    const operand = [{ type: '@cms/rich-text', content: '<p>absent</p>' }];
    const patches = Array.from({ length: 1000 }, () => ({ $pullAll: { 'body.items': operand } }));
    const url = `/api/v1/article/${created.result.body._id}?cmsMode=draft`;
    const patched = await whilePolled(base, () => send('PATCH', url, { _patches: patches }));
    assert.equal(patched.result.status, 200, JSON.stringify(patched.result.body).slice(0, 300));
    assert.equal(patched.result.body.body.items.length, 6);
    assert.deepEqual(
      patched.result.body.body.items.map((item: { content: string }) => item.content),
      stored.body.body.items.map((item: { content: string }) => item.content),
    );
    assert.ok(patched.ms < 5000, `the PATCH answered within 5 s (${Math.round(patched.ms)} ms)`);
    assertResponsive('PATCH of 1,000 operations', patched.polls);
  });

  it('keeps /health answering through a POST of big rich text up to the body limit, and refuses it within 5 s', async () => {
    const before = await articleCount();
    const items = Array.from({ length: 32 }, (_, i) => ({ type: '@cms/rich-text', content: costlyHtml(stringLength - 100, `<p>${i}</p>`) }));
    const posted = await whilePolled(base, () => send('POST', '/api/v1/article?cmsMode=draft', { title: 'Huge', body: { items } }));
    assert.equal(posted.result.status, 413, JSON.stringify(posted.result.body).slice(0, 300));
    assert.equal(posted.result.body.name, 'toolarge');
    assert.match(posted.result.body.message, /limits\.documentBytes/);
    assert.deepEqual(posted.result.body.data, { limit: 'documentBytes', max: documentBytes });
    assert.ok(posted.ms < 5000, `the POST was refused within 5 s (${Math.round(posted.ms)} ms)`);
    assertResponsive('POST up to the body limit', posted.polls);
    assert.equal(await articleCount(), before);
  });

  it('compares a value changed in place by an earlier operation of the same PATCH as it is now', async () => {
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Keys', links: [{ label: 'a' }, { label: 'c' }] } });
    assert.equal(draft.status, 200);
    const [first, second] = draft.body.links;
    const url = `/api/v1/article/${draft.body._id}?cmsMode=draft`;
    // The first $pullAll reads every link; the $set changes the first one in place; the last
    // $pullAll must see its new label, and the $addToSet must not add a copy of it.
    const patches = [
      { $pullAll: { links: [{ label: 'none' }] } },
      { $set: { 'links.0.label': 'b' } },
      { $addToSet: { links: { ...first, label: 'b' } } },
      { $pullAll: { links: [{ ...first, label: 'b' }] } },
    ];
    const patched = await t.request('PATCH', url, { key: 'contributor', body: { _patches: patches } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.links, [second]);
  });

  it('refuses a document larger than documentBytes, naming the limit, and stores nothing', async () => {
    const before = await articleCount();
    // No rich text: the stored version's own size is what is refused.
    const links = Array.from({ length: 10_000 }, (_, i) => ({ label: `${i} ${'x'.repeat(500)}` }));
    const posted = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Many links', links } });
    assert.equal(posted.status, 413, posted.text.slice(0, 300));
    assert.equal(posted.body.name, 'toolarge');
    assert.match(posted.body.message, new RegExp(`at most ${documentBytes} bytes as JSON \\(limits\\.documentBytes\\)`));
    assert.equal(posted.body.data.limit, 'documentBytes');
    assert.equal(posted.body.data.max, documentBytes);
    assert.ok(posted.body.data.bytes > documentBytes);
    assert.equal(await articleCount(), before);

    // A PATCH that would grow a stored draft past the cap leaves it as it was.
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Small', links: links.slice(0, 10) } });
    assert.equal(draft.status, 200);
    const url = `/api/v1/article/${draft.body._id}?cmsMode=draft`;
    const grown = await t.request('PATCH', url, { key: 'contributor', body: { $push: { links: { $each: links } } } });
    assert.equal(grown.status, 413, grown.text.slice(0, 300));
    assert.equal(grown.body.data.limit, 'documentBytes');
    const after = await t.request('GET', url, { key: 'contributor' });
    assert.equal(after.body.links.length, 10);
    assert.equal(after.body.updatedAt, draft.body.updatedAt);
  });
});
