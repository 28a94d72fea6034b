import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiTestsOnPostgres, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { newSchemaDatabase, type SchemaDatabase } from '../helpers/postgres.js';

/*
 * CMS_DATABASE_READ_URL naming the primary itself: a "replica" that is not in recovery is caught
 * up by definition, so the routing (positions, pinning, the per-source generations) runs in the
 * ordinary PostgreSQL pass. The Patroni cluster's real replicas: test/ha/read-replicas.test.ts.
 */

const position = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

interface Connection {
  role: string;
  name: string;
  up: boolean;
  served: number;
  lagMs?: number | null;
  skipped?: boolean;
}

describe('read replicas on plain PostgreSQL (the primary named as its own replica)', { skip: apiTestsOnPostgres ? false : 'CMS_TEST_API_DATABASE=postgres is not set: runs in the PostgreSQL pass' }, () => {
  let t: TestApp;
  let database: SchemaDatabase;
  before(async () => {
    database = await newSchemaDatabase();
    t = await startTestApp(testConfig(), { CMS_DATABASE_URL: database.url, CMS_DATABASE_READ_URL: ` ${database.url} , `, CMS_LIMIT_READ_REPLICA_POLL: '20' });
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  // As an admin asks: with each connection's name and error.
  const health = async (): Promise<Connection[]> => {
    const res = await t.request('GET', '/health', { key: 'admin' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ok');
    return res.body.connections as Connection[];
  };

  it('answers a write with CMS-Read-After, and a read sent back with it sees the write', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Routed', category: 'one' } });
    assert.equal(created.status, 200, created.text);
    const after = created.headers['cms-read-after'];
    assert.match(String(after), position);
    const list = await t.request('GET', '/api/v1/article?category=one', { headers: { 'cms-read-after': String(after) } });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.results.map((doc: { title: string }) => doc.title), ['Routed']);
    // A read commits nothing: no position to carry.
    assert.equal(list.headers['cms-read-after'], undefined);
    const one = await t.request('GET', `/api/v1/article/${created.body._id}`, { headers: { 'cms-read-after': String(after) } });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.title, 'Routed');
  });

  it('serves the reads of GET requests from the replica once polled, and lists each connection in /health', async () => {
    // The first poll must have found the replica up.
    let connections = await health();
    for (let n = 0; n < 50 && connections[1]?.up !== true; n++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      connections = await health();
    }
    assert.deepEqual(connections.map(({ role, up }) => ({ role, up })), [{ role: 'primary', up: true }, { role: 'replica', up: true }]);
    assert.equal(connections[1]!.lagMs, 0);
    assert.equal(connections[1]!.skipped, false);
    // Host and port, never the user or password of the URL.
    const server = new URL(database.url);
    assert.equal(connections[1]!.name, `replica 1 (${server.hostname}:${server.port || '5432'})`);
    assert.doesNotMatch(JSON.stringify(connections), /postgres:\/\//);
    // Anyone else (a load balancer) learns the states, not where the store's hosts are.
    for (const key of [null, 'editor'] as const) {
      const res = await t.request('GET', '/health', { key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.connections.map((connection: Connection) => Object.keys(connection).sort()),
        [['role', 'served', 'up'], ['lagMs', 'role', 'served', 'skipped', 'up']],
      );
    }
    const before = connections[1]!.served;
    const list = await t.request('GET', '/api/v1/article?category=none');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.results, []);
    const afterRead = await health();
    assert.ok(afterRead[1]!.served > before, `the replica served ${afterRead[1]!.served} reads, ${before} before`);
  });

  it('keeps the reads of a write on the primary, and a cached list follows the write', async () => {
    const first = await t.request('GET', '/api/v1/article?category=cached');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.results.length, 0);
    const servedBefore = (await health())[1]!.served;
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Cached', category: 'cached' } });
    assert.equal(created.status, 200, created.text);
    assert.equal((await health())[1]!.served, servedBefore, 'a POST reads nothing from a replica');
    const again = await t.request('GET', '/api/v1/article?category=cached', { headers: { 'cms-read-after': String(created.headers['cms-read-after']) } });
    assert.deepEqual(again.body.results.map((doc: { title: string }) => doc.title), ['Cached']);
  });

  it('gives the admin session its position in the cms.read-after cookie, which its reads send back', async () => {
    const password = 'session-password-123';
    const user = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Session Person', username: 'session', password, role: 'admin' } });
    assert.equal(user.status, 200, user.text);
    const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'session', password, session: true } });
    assert.equal(login.status, 200, login.text);
    const session = ([] as string[]).concat(login.headers['set-cookie'] as string | string[]).map((line) => line.split(';')[0]).join('; ');
    const created = await t.request('POST', '/api/v1/article', { key: null, headers: { cookie: session, 'x-csrf-token': login.body.csrfToken }, body: { title: 'From the admin', category: 'admin' } });
    assert.equal(created.status, 200, created.text);
    const lsn = String(created.headers['cms-read-after']);
    assert.match(lsn, position);
    const set = ([] as string[]).concat(created.headers['set-cookie'] as string | string[]);
    const cookie = set.find((line) => line.startsWith('cms.read-after='));
    assert.equal(cookie, `cms.read-after=${lsn}; Path=/; HttpOnly; SameSite=Strict`);
    const list = await t.request('GET', '/api/v1/article?category=admin', { key: null, headers: { cookie: `${session}; ${cookie!.split(';')[0]!}` } });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.results.map((doc: { title: string }) => doc.title), ['From the admin']);
    // An API key's answer carries the header only: no cookie for a caller that keeps none.
    const byKey = await t.request('POST', '/api/v1/article', { body: { title: 'By key' } });
    assert.equal(([] as string[]).concat((byKey.headers['set-cookie'] as string | string[] | undefined) ?? []).some((line) => line.startsWith('cms.read-after=')), false);
    // A cookie that is not a position is ignored, not refused: the browser holds it.
    const stale = await t.request('GET', '/api/v1/article?category=admin', { key: null, headers: { cookie: `${session}; cms.read-after=garbage` } });
    assert.equal(stale.status, 200, stale.text);
  });

  it('refuses a malformed CMS-Read-After with 400 in the error shape', async () => {
    for (const bad of ['', 'zz/1', '1', '1/2/3', '123456789/1', '1/ 2']) {
      const res = await t.request('GET', '/api/v1/article', { headers: { 'cms-read-after': bad } });
      assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.match(res.body.message, /CMS-Read-After takes one position/);
      assert.deepEqual(res.body.data, { header: 'CMS-Read-After' });
    }
  });
});

describe('read positions without read replicas', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
  });

  it('sends no CMS-Read-After and lists no connections, but still refuses a malformed one', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Plain' } });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.headers['cms-read-after'], undefined);
    const health = await t.request('GET', '/health', { key: null });
    assert.deepEqual(health.body, { status: 'ok', store: 'ok' });
    const bad = await t.request('GET', '/api/v1/article', { headers: { 'cms-read-after': 'nope' } });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(bad.body.data, { header: 'CMS-Read-After' });
    const good = await t.request('GET', '/api/v1/article', { headers: { 'cms-read-after': '0/1' } });
    assert.equal(good.status, 200, good.text);
  });
});
