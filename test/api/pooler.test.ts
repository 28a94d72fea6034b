import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { newSchemaDatabase, poolerUrl, postgresUrl, type SchemaDatabase } from '../helpers/postgres.js';

/**
 * Behind PgBouncer in transaction mode (CMS_TEST_PGBOUNCER_URL, with CMS_TEST_POSTGRES_URL for
 * the server itself), consecutive transactions of one client reach different server connections:
 * nothing may live in a server session between them. Writes side by side, If-Match races and
 * reads all answer as they do on a direct connection, and the server holds no named statement.
 */
const skip = poolerUrl && postgresUrl ? false : 'CMS_TEST_PGBOUNCER_URL and CMS_TEST_POSTGRES_URL are not set: the pooler run is skipped';

describe('PostgreSQL behind PgBouncer in transaction mode', { skip }, () => {
  let database: SchemaDatabase;
  let t: TestApp;

  before(async () => {
    database = await newSchemaDatabase();
    t = await startTestApp(testConfig(), { CMS_DATABASE_URL: database.url });
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  it('reaches its database through the pooler, with pgbouncer=true', () => {
    const url = new URL(database.url);
    assert.equal(url.host, new URL(poolerUrl!).host);
    assert.match(url.pathname, /^\/cms_test_[0-9a-f]+$/);
    assert.equal(url.searchParams.get('pgbouncer'), 'true');
  });

  it('answers writes and reads side by side, each transaction on whichever connection the pooler gives', async () => {
    const first = await t.request('POST', '/api/v1/article', { body: { title: 'Shared' } });
    assert.equal(first.status, 200, first.text);
    const work = Array.from({ length: 30 }, (_, i) => [
      t.request('POST', '/api/v1/article', { body: { title: `Side ${i}` } }),
      t.request('PATCH', `/api/v1/article/${first.body._id}`, { body: { title: `Shared ${i}` } }),
      t.request('GET', `/api/v1/article?perPage=5&page=${(i % 4) + 1}`),
    ]).flat();
    const answers = await Promise.all(work);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
      answers.find((answer) => answer.status !== 200)?.text,
    );
    const count = await t.request('GET', '/api/v1/article?count=1');
    assert.deepEqual(count.body, { count: 31 });
  });

  it('lets exactly one of twenty writes holding one ETag win, the others 412', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Race' } });
    const read = await t.request('GET', `/api/v1/article/${created.body._id}`);
    const etag = String(read.headers.etag);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request('PATCH', `/api/v1/article/${created.body._id}`, { body: { title: `Race ${i}` }, headers: { 'if-match': etag } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, ...Array<number>(19).fill(412)]);
  });

  it('leaves no named prepared statement in the server session the pooler lends', async () => {
    // Named statements belong to a server session: a query through the pooler lands on one of
    // the connections the app's statements ran on, and sees what they left there.
    assert.equal(await countThrough(t.databaseUrl, 'SELECT count(*) AS count FROM pg_prepared_statements'), '0');
  });

  it('holds no advisory lock once its transactions are over (document and slug holds end with them)', async () => {
    const held = `SELECT count(*) AS count FROM pg_locks JOIN pg_database ON pg_database.oid = pg_locks.database
      WHERE pg_locks.locktype = 'advisory' AND pg_database.datname = current_database()`;
    assert.equal(await countThrough(t.databaseUrl, held), '0');
  });
});

async function countThrough(url: string, sql: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url.replace(/[?&]pgbouncer=true/, '') });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(sql);
    return rows[0]!.count;
  } finally {
    await client.end();
  }
}
