import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { apiTestsOnPostgres, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import Database from '../../src/storage/sqlite/driver.js';

/** A client-sized body must be refused fast: the old code spent 11 s on 200,000 widgets, then answered 500. */
const quickly = 3000;

const widget = { type: '@cms/rich-text', content: '<p>x</p>' };

describe('limits on the shape of a JSON body and on areas (defaults)', () => {
  let t: TestApp;
  let existingId: string;
  before(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Existing', body: { items: [widget] } } });
    assert.equal(created.status, 200);
    existingId = created.body._id;
  });
  after(() => t.close());

  async function draftCount(): Promise<number> {
    const res = await t.request('GET', '/api/v1/article?cmsMode=draft&count=1');
    return res.body.count;
  }

  /** Sends the body as JSON; checks the 400, its path, its speed, and that nothing changed. */
  async function refused(method: 'POST' | 'PATCH', url: string, body: unknown, path: string | RegExp) {
    const before = await draftCount();
    const stored = await t.request('GET', `/api/v1/article/${existingId}`);
    const started = performance.now();
    const res = await t.request(method, url, { body });
    const elapsed = performance.now() - started;
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.equal(res.body.name, 'invalid');
    const errorPath = res.body.data.errors[0].path;
    if (typeof path === 'string') assert.equal(errorPath, path);
    else assert.match(errorPath, path);
    assert.ok(elapsed < quickly, `took ${Math.round(elapsed)} ms`);
    assert.equal(await draftCount(), before);
    assert.deepEqual((await t.request('GET', `/api/v1/article/${existingId}`)).body, stored.body);
    return res;
  }

  it('refuses an area of 200,000 widgets with a 400 naming its items, on POST and PATCH', async () => {
    const items = Array.from({ length: 200_000 }, () => widget);
    await refused('POST', '/api/v1/article', { title: 'Huge', body: { items } }, 'body.items');
    await refused('PATCH', `/api/v1/article/${existingId}`, { body: { items } }, 'body.items');
    await refused('PATCH', `/api/v1/article/${existingId}`, { $push: { 'body.items': { $each: items } } }, '$push.body.items.$each');
  });

  it('refuses an array of 200,000 items with a 400 naming the array', async () => {
    const links = Array.from({ length: 200_000 }, (_, index) => ({ label: `Link ${index}` }));
    const res = await refused('POST', '/api/v1/article', { title: 'Huge', links }, 'links');
    assert.match(res.body.data.errors[0].message, /at most 10000 items/);
    await refused('PATCH', `/api/v1/article/${existingId}`, { links }, 'links');
  });

  it('refuses an object with 2,000 keys with a 400 naming the object', async () => {
    const label = Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`k${index}`, index]));
    const res = await refused('POST', '/api/v1/article', { title: 'Keys', links: [{ label: 'a' }, label] }, 'links.1');
    assert.match(res.body.data.errors[0].message, /at most 1000 keys/);
  });

  it('refuses a body of more than 200,000 values, stopping at the first value past the cap', async () => {
    // 9,000 items of 30 keys each: every array and object within its own cap, 279,001 values in all.
    const item = Object.fromEntries(Array.from({ length: 29 }, (_, index) => [`k${index}`, index]));
    const links = Array.from({ length: 9000 }, () => ({ label: 'a', ...item }));
    const res = await refused('POST', '/api/v1/article', { title: 'Nodes', links }, /^links\.6451\./);
    assert.match(res.body.data.errors[0].message, /more than 200000 values/);
  });

  it('refuses nesting past the depth limit naming where it starts', async () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100; level++) deep = [deep];
    await refused('POST', '/api/v1/article', { title: 'Deep', links: deep }, /^links(\.0){64}$/);
  });

  it('lists at most 50 failing items of an array or area, so the refusal stays small', async () => {
    const links = Array.from({ length: 10_000 }, () => 'not an object');
    const items = Array.from({ length: 1_000 }, () => ({ type: 'no-such-widget' }));
    for (const [body, field] of [[{ title: 'Bad items', links }, 'links'], [{ title: 'Bad widgets', body: { items } }, 'body']] as const) {
      const res = await refused('POST', '/api/v1/article', body, field);
      assert.equal(res.body.data.errors[0].data.errors.length, 50);
      assert.ok(res.text.length < 16 * 1024, `${res.text.length} bytes`);
    }
  });

  it('keeps a refusal short when it quotes a long key or value', async () => {
    const key = 'k'.repeat(100_000);
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'x', [key]: Array.from({ length: 10_001 }, () => 1) } });
    assert.equal(res.status, 400);
    assert.ok(res.text.length < 1024, `${res.text.length} bytes`);
    assert.ok(res.body.data.errors[0].path.startsWith('kkk'));
    const locale = await t.request('GET', `/api/v1/article?cmsLocale=${'x'.repeat(100_000)}`);
    assert.equal(locale.status, 400);
    assert.ok(locale.text.length < 2048, `${locale.text.length} bytes`);
  });

  it('refuses a string longer than limits.stringLength (sanitizing rich text costs about 1 s per MB)', async () => {
    const html = '<p>word</p>'.repeat(50_000);
    await refused('POST', '/api/v1/article', { title: 'Long', body: { items: [{ type: '@cms/rich-text', content: html }] } }, 'body.items.0.content');
    await refused('PATCH', `/api/v1/article/${existingId}`, { category: 'x'.repeat(500_001) }, 'category');
    const longest = await t.request('POST', '/api/v1/article', { body: { title: 'Longest', category: 'x'.repeat(500_000) } });
    assert.equal(longest.status, 200, longest.text.slice(0, 300));
  });

  it('accepts what a real editor sends: an array of 1,500 items', async () => {
    const links = Array.from({ length: 1500 }, (_, index) => ({ label: `Link ${index}`, url: `https://example.com/${index}` }));
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'Long list', links } });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.body.links.length, 1500);
  });
});

describe('widgets per area (limits.areaWidgets)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ ...testConfig(), limits: { areaWidgets: 3 } });
  });
  after(() => t.close());

  it('refuses an area over the cap naming the area, before converting any widget', async () => {
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'Four', body: { items: [widget, widget, widget, widget] } } });
    assert.equal(res.status, 400);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(
      res.body.data.errors.map((error: { path: string; name: string; data: unknown }) => [error.path, error.name, error.data]),
      [['body', 'max', { max: 3 }]],
    );
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&count=1')).body.count, 0);
  });

  it('counts what a patch leaves in the area', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Three', body: { items: [widget, widget, widget] } } });
    assert.equal(created.status, 200);
    const res = await t.request('PATCH', `/api/v1/article/${created.body._id}`, { body: { $push: { 'body.items': widget } } });
    assert.equal(res.status, 400);
    assert.equal(res.body.data.errors[0].path, 'body');
    const stored = await t.request('GET', `/api/v1/article/${created.body._id}`);
    assert.equal(stored.body.body.items.length, 3);
  });
});

describe('planner statistics while the server runs (limits.statisticsRows)', { skip: apiTestsOnPostgres && 'SQLite keeps its statistics itself; cms import analyzes PostgreSQL' }, () => {
  /** The rows sqlite_stat1 holds for the documents' indexes, read as another process would. */
  function statisticsOfDocuments(file: string): number {
    const inspector = new Database(file, { readonly: true });
    try {
      const exists = inspector.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() !== undefined;
      return exists ? (inspector.prepare("SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'documents'").pluck().get() as number) : 0;
    } finally {
      inspector.close();
    }
  }

  it('gathers them after a bulk of writes, the store still open', async () => {
    const t = await startTestApp(testConfig(), { CMS_LIMIT_STATISTICS_ROWS: '20' });
    try {
      const file = t.databaseUrl.slice('sqlite:'.length);
      assert.equal(statisticsOfDocuments(file), 0, 'a new store has none');
      for (let n = 0; n <= 10; n++) {
        const created = await t.request('POST', '/api/v1/article', { body: { title: `Bulk ${n}`, tags: ['news'] } });
        assert.equal(created.status, 200, created.text);
      }
      // The refresh runs between two transactions: the last write was answered after it.
      assert.ok(statisticsOfDocuments(file) > 0, 'the documents were analyzed');
    } finally {
      await t.close();
    }
  });
});
