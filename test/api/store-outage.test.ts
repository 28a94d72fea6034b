import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from '../../src/storage/sqlite/driver.js';
import { adminQuery, newSchemaDatabase, poolerUrl, skipWithoutPostgres, type SchemaDatabase } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { apiTestsOnPostgres, startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';

/*
 * The store goes away and comes back: while it is away, every request that needs it is refused
 * with 503, Retry-After and the one error shape (never a 500, never a wait past the configured
 * timeout), /health says so to a load balancer, and once it is back everything works again in the
 * same process, with nothing acknowledged lost.
 */

/** A 503 of the store being away, in the one error shape. */
function assertUnavailable(res: TestResponse, what: string): void {
  assert.equal(res.status, 503, `${what}: ${res.text}`);
  assert.equal(res.headers['retry-after'], '2', what);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name'], what);
  assert.equal(res.body.name, 'unavailable', what);
  assert.match(res.body.message, /try again shortly/, what);
  assert.deepEqual(res.body.data, { retryAfter: 2 }, what);
}

// The app reaches PostgreSQL through a relay of the test's own, which it cuts: the server others
// use is never restarted. Behind PgBouncer the app's connections end at the pooler, not at the
// server sessions this file ends: the direct runs cover it.
// Through HAProxy (`npm run test:ha`) the sessions' client ports are HAProxy's, not the relay's.
const skipPostgres =
  skipWithoutPostgres ||
  (poolerUrl ? 'the outage runs against PostgreSQL directly, not through PgBouncer' : false) ||
  (process.env.CMS_TEST_HA_WRITE_URL ? 'the outage runs against PostgreSQL directly, not through HAProxy' : false);

// Short, so that the wait for an answer that never comes is measured in the test's time.
const statementTimeout = 1_000;

describe('PostgreSQL going away and coming back', { skip: skipPostgres }, () => {
  let database: SchemaDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  let kept: { id: string; title: string };

  before(async () => {
    database = await newSchemaDatabase();
    const server = new URL(database.url);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    t = await startTestApp(testConfig(), {
      CMS_DATABASE_URL: proxy.urlThrough(database.url),
      CMS_LIMIT_POSTGRES_CONNECT_TIMEOUT: '500',
      CMS_LIMIT_POSTGRES_STATEMENT_TIMEOUT: String(statementTimeout),
    });
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'Written before the outage' } });
    assert.equal(res.status, 200, res.text);
    kept = { id: res.body._id, title: res.body.title };
  });

  after(async () => {
    await t?.close();
    await proxy?.close();
    await database?.drop();
  });

  /** Ends the server sessions of the app's connections open now, which it notices only when it uses one. */
  async function endSessionsUnnoticed(): Promise<void> {
    const ports = proxy.hold();
    // The sessions are picked first, then ended one by one: in one statement PostgreSQL may call
    // pg_terminate_backend before it filters, on sessions that are not the app's.
    const sessions = await adminQuery<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE client_addr = '127.0.0.1' AND application_name = 'cms-server' AND client_port = ANY($1::int[])",
      [ports],
    );
    assert.ok(sessions.length >= 1, `the app's sessions: ${sessions.length} of ${ports.length}`);
    for (const { pid } of sessions) {
      // The timeout makes it wait until the session has ended.
      const [ended] = await adminQuery<{ ended: boolean }>('SELECT pg_terminate_backend($1::int, 10000) AS ended', [pid]);
      assert.equal(ended!.ended, true);
    }
  }

  it('a read whose connection the server had ended (57P01) runs again on a new one', async () => {
    await endSessionsUnnoticed();
    const writes = proxy.heldWrites;
    const res = await t.request('GET', `/api/v1/article/${kept.id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.title, kept.title);
    // The reads of one GET run side by side: each met an ended session first.
    assert.ok(proxy.heldWrites > writes, 'the read met an ended session first');
  });

  it('a write whose transaction could not begin on an ended session runs again on a new one', async () => {
    await endSessionsUnnoticed();
    const writes = proxy.heldWrites;
    const res = await t.request('PATCH', `/api/v1/article/${kept.id}`, { body: { category: 'kept' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.category, 'kept');
    assert.equal(proxy.heldWrites, writes + 1, 'the write met an ended session first');
    const read = await t.request('GET', `/api/v1/article/${kept.id}`);
    assert.equal(read.body.category, 'kept');
  });

  it('while the server refuses connections every request that needs it is a 503, and all works again after', async () => {
    await proxy.cut();
    assertUnavailable(await t.request('GET', '/api/v1/article'), 'list');
    assertUnavailable(await t.request('GET', `/api/v1/article/${kept.id}`), 'get one');
    assertUnavailable(await t.request('POST', '/api/v1/article', { body: { title: 'Written during the outage' } }), 'insert');
    assertUnavailable(await t.request('PATCH', `/api/v1/article/${kept.id}`, { body: { category: 'lost' } }), 'patch');
    assertUnavailable(await t.request('GET', '/health', { key: null }), 'health');
    assertUnavailable(await t.request('GET', '/api/v1/@cms/events'), 'the change stream, before any byte of it');
    const live = await t.request('GET', '/health/live', { key: null });
    assert.deepEqual([live.status, live.body], [200, { status: 'ok' }]);

    await proxy.restore();
    const health = await t.request('GET', '/health', { key: null });
    assert.deepEqual([health.status, health.body], [200, { status: 'ok', store: 'ok' }]);
    const inserted = await t.request('POST', '/api/v1/article', { body: { title: 'Written after the outage' } });
    assert.equal(inserted.status, 200, inserted.text);
    const list = await t.request('GET', '/api/v1/article?sort[title]=1');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.results.map((doc: { title: string; category: string }) => [doc.title, doc.category]),
      [['Written after the outage', ''], ['Written before the outage', 'kept']],
    );
  });

  it('a server that does not answer at all is a 503 once the connect timeout has passed', async () => {
    proxy.stall();
    assertUnavailable(await t.request('GET', `/api/v1/article/${kept.id}`), 'get one');
    assertUnavailable(await t.request('GET', '/health', { key: null }), 'health');
    await proxy.restore();
    const res = await t.request('GET', `/api/v1/article/${kept.id}`);
    assert.equal(res.status, 200, res.text);
  });

  it('a connection that stops answering without closing is a 503 after the statement timeout, and is not used again', async () => {
    // Open connections in the pool first, then leave them without a word, as a killed host does.
    assert.equal((await t.request('GET', `/api/v1/article/${kept.id}`)).status, 200);
    proxy.freeze();
    const startedAt = Date.now();
    assertUnavailable(await t.request('GET', `/api/v1/article/${kept.id}`), 'get one on a frozen connection');
    const waited = Date.now() - startedAt;
    // Once the statement timeout, not twice: a read that timed out is not run again.
    assert.ok(waited >= statementTimeout && waited < 2 * statementTimeout, `answered after ${waited} ms`);
    // The frozen connections are closed, not pooled: the next request opens new ones, which work.
    const read = await t.request('GET', `/api/v1/article/${kept.id}`);
    assert.equal(read.status, 200, read.text);
    const write = await t.request('PATCH', `/api/v1/article/${kept.id}`, { body: { category: 'after the freeze' } });
    assert.equal(write.status, 200, write.text);
    await proxy.restore();
  });

  it('a write whose connection breaks once COMMIT is sent is a 503 saying the outcome is unknown, and runs no second time', async () => {
    const cut = proxy.cutOnAnswerTo('COMMIT');
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'Sent as the commit broke' } });
    await cut;
    assert.equal(res.status, 503, res.text);
    assert.equal(res.headers['retry-after'], '2');
    assert.equal(res.body.name, 'unavailable');
    assert.match(res.body.message, /may or may not be stored/);
    assert.deepEqual(res.body.data, { outcome: 'unknown', retryAfter: 2 });
    // PostgreSQL committed it before the answer was lost: stored once, never written again.
    const found = await t.request('GET', '/api/v1/article?cmsMode=draft&search=commit+broke&perPage=100');
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results.map((doc: { title: string }) => doc.title), ['Sent as the commit broke']);
  });
});

// SQLite's file lock is held by another process's write (CMS_WORKERS, the CLI): a connection of
// the test's own holds it here. The PostgreSQL runs have no file.
describe('SQLite locked by another process', { skip: apiTestsOnPostgres ? 'the SQLite runs cover the file lock' : false }, () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_SQLITE_BUSY_TIMEOUT: '50' });
  });

  after(async () => {
    await t?.close();
  });

  it('a write that cannot have the lock within the busy timeout is a 503; reads go on; the next write succeeds', async () => {
    const before = await t.request('POST', '/api/v1/article', { body: { title: 'Before the lock' } });
    assert.equal(before.status, 200, before.text);
    const other = new Database(t.databaseUrl.slice('sqlite:'.length));
    try {
      other.exec('BEGIN IMMEDIATE');
      assertUnavailable(await t.request('POST', '/api/v1/article', { body: { title: 'While locked' } }), 'insert');
      const read = await t.request('GET', `/api/v1/article/${before.body._id}`);
      assert.equal(read.status, 200, read.text);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    const after = await t.request('POST', '/api/v1/article', { body: { title: 'After the lock' } });
    assert.equal(after.status, 200, after.text);
    const list = await t.request('GET', '/api/v1/article?sort[title]=1');
    assert.deepEqual(list.body.results.map((doc: { title: string }) => doc.title), ['After the lock', 'Before the lock']);
  });
});
