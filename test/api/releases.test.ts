import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiTestsOnPostgres, keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { sendRequest, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { newSchemaDatabase } from '../helpers/postgres.js';

/*
 * Releases (issue 38) through real HTTP on the test's store (SQLite, or PostgreSQL with
 * CMS_TEST_API_DATABASE=postgres): drafts of several types published in one transaction, all
 * or none, reverted together, run when due, once across two server processes.
 */

/** The fixture types, and `memo`, which only an admin may publish. */
function releaseConfig(): Record<string, unknown> {
  const config = testConfig() as { modules: Record<string, unknown> };
  config.modules.memo = { extend: '@cms/piece-type', options: { label: 'Memo', publishRole: 'admin' }, fields: { add: { text: { type: 'string' } } } };
  return config;
}

const fast = { CMS_LIMIT_SCHEDULER_INTERVAL: '100' };
const base = '/api/v1/@cms/release';
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`never came: ${JSON.stringify(value).slice(0, 500)}`);
    await sleep(50);
  }
}

describe('releases: drafts published together', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(releaseConfig(), fast);
  });
  after(async () => {
    await t?.close();
  });

  async function draft(type: string, title: string): Promise<string> {
    const res = await t.request('POST', `/api/v1/${type}?cmsMode=draft`, { body: { title } });
    assert.equal(res.status, 200, res.text);
    return `${res.body.cmsDocId}:en:draft`;
  }
  async function release(title: string, ids: string[], body: Record<string, unknown> = {}): Promise<string> {
    const made = await t.request('POST', base, { body: { title, ...body }, key: 'editor' });
    assert.equal(made.status, 201, made.text);
    if (ids.length > 0) {
      const added = await t.request('POST', `${base}/${made.body._id}/documents`, { body: { add: ids }, key: 'editor' });
      assert.equal(added.status, 200, added.text);
      assert.equal(added.body.count, ids.length);
    }
    return made.body._id;
  }
  const publishedOf = (draftId: string, type = 'article') => t.request('GET', `/api/v1/${type}/${draftId.replace(/:draft$/, ':published')}`);

  it('creates, lists newest first, adds and removes documents with their states', async () => {
    const a = await draft('article', 'One');
    const b = await draft('note', 'Two');
    const id = await release('Spring', [a, b]);
    const second = await release('Summer', []);
    const list = await t.request('GET', `${base}?limit=1`, { key: 'editor' });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.results.map((r: any) => r._id), [second]);
    const next = await t.request('GET', `${base}?limit=1&before=${list.body.next}`, { key: 'editor' });
    assert.deepEqual(next.body.results.map((r: any) => r._id), [id]);
    const got = await t.request('GET', `${base}/${id}`, { key: 'editor' });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.state, 'open');
    assert.deepEqual(got.body.documents.map((d: any) => [d._id, d.type, d.title, d.state]).sort(), [[a, 'article', 'One', 'modified'], [b, 'note', 'Two', 'modified']].sort());
    const removed = await t.request('POST', `${base}/${id}/documents`, { body: { remove: [b] }, key: 'editor' });
    assert.deepEqual(removed.body, { added: 0, removed: 1, count: 1 });
    const edited = await t.request('PATCH', `${base}/${id}`, { body: { title: 'Spring 2' }, key: 'editor' });
    assert.equal(edited.body.title, 'Spring 2');
    assert.equal((await t.request('DELETE', `${base}/${second}`, { key: 'editor' })).status, 200);
    assert.equal((await t.request('GET', `${base}/${second}`, { key: 'editor' })).status, 404);
  });

  it('refuses contributors, guests, anonymous callers and hostile bodies, changing nothing', async () => {
    const a = await draft('article', 'Guarded');
    const id = await release('Guarded', [a]);
    for (const key of ['contributor', 'guest', null] as const) {
      for (const [method, url, body] of [['POST', base, { title: 'x' }], ['GET', base], ['GET', `${base}/${id}`], ['POST', `${base}/${id}/publish`], ['POST', `${base}/${id}/documents`, { remove: [a] }]] as const) {
        const res = await t.request(method, url, { body, key });
        assert.ok(res.status === 401 || res.status === 403, `${key} ${method} ${url}: ${res.status}`);
      }
    }
    const hostile: unknown[] = [{}, { title: '' }, { title: 'x'.repeat(201) }, { title: 1 }, { title: 'x', publishAt: 'soon' }, { title: 'x', other: 1 }, JSON.parse('{"__proto__": {"title": "x"}}'), []];
    for (const body of hostile) assert.equal((await t.request('POST', base, { body, key: 'editor' })).status, 400, JSON.stringify(body));
    const bad: unknown[] = [{ add: 'x' }, { add: [1] }, { add: ['nocolons'] }, { add: ['a:en:published'] }, { add: Array.from({ length: 1001 }, (_, i) => `d${i}:en:draft`) }, { add: [], __proto__x: 1 }];
    for (const body of bad) assert.equal((await t.request('POST', `${base}/${id}/documents`, { body, key: 'editor' })).status, 400, JSON.stringify(body).slice(0, 80));
    const missing = await t.request('POST', `${base}/${id}/documents`, { body: { add: ['nosuchdocument0000000000:en:draft'] }, key: 'editor' });
    assert.equal(missing.status, 404, missing.text);
    assert.deepEqual(missing.body.data.missing, ['nosuchdocument0000000000:en:draft']);
    // A contributor's own types do not matter: a draft of a type the caller may not edit is not found.
    const got = await t.request('GET', `${base}/${id}`, { key: 'editor' });
    assert.deepEqual(got.body.documents.map((d: any) => d._id), [a]);
  });

  it('publishes all or none: a refusal in the middle publishes nothing and names its document', async () => {
    const a = await draft('article', 'First');
    const memo = await draft('memo', 'Admins only');
    const c = await draft('article', 'Third');
    const id = await release('Mixed', [a, memo, c]);
    const check = await t.request('POST', `${base}/${id}/precheck`, { key: 'editor' });
    assert.equal(check.status, 200, check.text);
    assert.equal(check.body.ok, false);
    assert.deepEqual(check.body.failures.map((f: any) => [f._id, f.type, f.name]), [[memo, 'memo', 'forbidden']]);
    const refused = await t.request('POST', `${base}/${id}/publish`, { key: 'editor' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.data._id, memo);
    for (const doc of [a, c]) assert.equal((await publishedOf(doc)).status, 404);
    assert.equal((await t.request('GET', `${base}/${id}`, { key: 'editor' })).body.state, 'open');
    // An admin may: everything is published at once, the release records who and when.
    const done = await t.request('POST', `${base}/${id}/publish`, { key: 'admin' });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.state, 'published');
    assert.equal(typeof done.body.publishedAt, 'string');
    assert.equal((await publishedOf(a)).body.title, 'First');
    assert.equal((await publishedOf(memo, 'memo')).status, 200);
    const states = (await t.request('GET', `${base}/${id}`, { key: 'editor' })).body.documents.map((d: any) => d.state);
    assert.deepEqual(states, ['published', 'published', 'published']);
    assert.equal((await t.request('POST', `${base}/${id}/publish`, { key: 'admin' })).status, 409);
    const audit = await t.request('GET', `/api/v1/@cms/audit?action=release.publish`, { key: 'admin' });
    assert.deepEqual(audit.body.results.map((r: any) => r.ids[0]), [id]);
    assert.equal((await t.request('DELETE', `${base}/${id}`, { key: 'admin' })).status, 409);
  });

  it('precheck names a missing draft and changes nothing', async () => {
    const a = await draft('article', 'Kept');
    const gone = await draft('article', 'Gone');
    const id = await release('Holes', [a, gone]);
    assert.equal((await t.request('DELETE', `/api/v1/article/${gone}`, { key: 'admin' })).status, 200);
    const check = await t.request('POST', `${base}/${id}/precheck`, { key: 'editor' });
    assert.deepEqual(check.body.failures.map((f: any) => [f._id, f.name]), [[gone, 'notfound']]);
    assert.equal((await publishedOf(a)).status, 404);
    const got = await t.request('GET', `${base}/${id}`, { key: 'editor' });
    assert.deepEqual(got.body.documents.map((d: any) => [d._id, d.state]).sort(), [[a, 'modified'], [gone, 'missing']].sort());
  });

  it('reverts: a document published before goes back, one the release published first is unpublished', async () => {
    const old = await draft('article', 'Old title');
    assert.equal((await t.request('POST', `/api/v1/article/${old}/publish`, { key: 'editor' })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${old}`, { body: { title: 'New title' }, key: 'editor' })).status, 200);
    const fresh = await draft('article', 'Fresh');
    const id = await release('Revertible', [old, fresh]);
    assert.equal((await t.request('POST', `${base}/${id}/publish`, { key: 'editor' })).status, 200);
    assert.equal((await publishedOf(old)).body.title, 'New title');
    const reverted = await t.request('POST', `${base}/${id}/revert`, { key: 'editor' });
    assert.equal(reverted.status, 200, reverted.text);
    assert.equal(reverted.body.state, 'reverted');
    assert.equal((await publishedOf(old)).body.title, 'Old title');
    assert.equal((await publishedOf(fresh)).status, 404);
  });

  it('runs a due release on the scheduler, and marks a refused one failed', async () => {
    const docs = await Promise.all(Array.from({ length: 300 }, (_, i) => draft('article', `Bulk ${i}`)));
    const id = await release('Timed', docs, { publishAt: inMs(800) });
    const memo = await draft('memo', 'Refused');
    const refused = await release('Timed refusal', [memo], { publishAt: inMs(800) });
    await eventually(() => t.request('GET', `${base}/${id}`, { key: 'editor' }), (r) => r.body.state === 'published', 20_000);
    assert.equal((await publishedOf(docs[299]!)).status, 200);
    const failed = await eventually(() => t.request('GET', `${base}/${refused}`, { key: 'editor' }), (r) => r.body.state === 'failed');
    assert.match(failed.body.failure, /memo/);
    assert.equal((await publishedOf(memo, 'memo')).status, 404);
  });
});

describe('releases across two server processes', () => {
  let configDir: string;
  let env: Record<string, string>;
  let dropStore: () => Promise<void>;
  const running: ServerProcess[] = [];
  const admin = { authorization: `ApiKey ${keys.admin}` };

  before(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'cms-release-'));
    const configPath = join(configDir, 'cms.config.json');
    await writeFile(configPath, JSON.stringify(releaseConfig()));
    if (apiTestsOnPostgres) {
      const database = await newSchemaDatabase();
      env = { CMS_CONFIG: configPath, CMS_DATABASE_URL: database.url, ...fast };
      dropStore = () => database.drop();
    } else {
      env = { CMS_CONFIG: configPath, CMS_DATA_DIR: configDir, ...fast };
      dropStore = async () => undefined;
    }
  });
  after(async () => {
    await Promise.all(running.map((server) => server.stop()));
    await dropStore?.();
    await rm(configDir, { recursive: true, force: true });
  });

  async function start(): Promise<ServerProcess> {
    const server = await startServerProcess({ env });
    running.push(server);
    for (let i = 0; i < 100; i++) {
      if ((await sendRequest(server.port, 'GET', '/health', undefined, {})).status === 200) return server;
      await sleep(50);
    }
    assert.fail(`never healthy:\n${server.output()}`);
  }
  async function ok(server: ServerProcess, method: string, path: string, body?: unknown): Promise<any> {
    const res = await sendRequest(server.port, method, path, body, admin);
    assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.text}`);
    return res.body;
  }

  it('a due release runs once; two publishes at once: one succeeds, all or none', async () => {
    const [a, b] = [await start(), await start()];
    const docs: string[] = [];
    for (let i = 0; i < 20; i++) docs.push(`${(await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { title: `P${i}` })).cmsDocId}:en:draft`);
    const timed = (await ok(a, 'POST', base, { title: 'Due', publishAt: inMs(1000) }))._id;
    await ok(a, 'POST', `${base}/${timed}/documents`, { add: docs.slice(0, 10) });
    const manual = (await ok(b, 'POST', base, { title: 'Manual' }))._id;
    await ok(b, 'POST', `${base}/${manual}/documents`, { add: docs.slice(10) });
    const answers = await Promise.all([a, b].map((server) => sendRequest(server.port, 'POST', `${base}/${manual}/publish`, undefined, admin)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409], answers.map((r) => r.text).join('\n'));
    await eventually(() => ok(b, 'GET', `${base}/${timed}`), (r) => r.state === 'published', 15_000);
    await sleep(500);
    const records = await ok(a, 'GET', '/api/v1/@cms/audit?action=release.publish');
    assert.deepEqual(records.results.map((r: any) => r.ids[0]).sort(), [timed, manual].sort());
    const publishes = await ok(a, 'GET', '/api/v1/@cms/audit?action=document.publish&perPage=100');
    assert.equal(publishes.results.length, 20);
    for (const doc of docs) assert.equal((await sendRequest(b.port, 'GET', `/api/v1/article/${doc.replace(':draft', ':published')}`, undefined, admin)).status, 200);
  });
});
