import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCmsClient } from '../../src/client/index.js';
import { adminQuery, uniqueSchemaName } from '../helpers/postgres.js';
import { sendRequest, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startHaCluster } from '../helpers/ha-cluster.js';

/*
 * Read replicas on the Patroni cluster (scripts/ha-cluster.sh): two server processes on one
 * schema, their reads spread over the cluster's standbys named directly, plus a replica that
 * cannot be reached. The replicas are made to lag by pausing their replay (pg_wal_replay_pause())
 * with Patroni in maintenance mode meanwhile: otherwise it resumes the replay within a second. Its
 * REST API is found as the script lays the ports out: a node's PostgreSQL port + 2570.
 *
 * CMS_TEST_HA=1 runs it (npm run test:ha:replicas): on the cluster CMS_TEST_HA_DIR names, with
 * CMS_TEST_HA_WRITE_URL (CI's, left running; its standbys found through Patroni), or else on one it
 * starts in a temporary directory with CMS_HA_PORT_OFFSET and stops afterwards.
 */

const skip = process.env.CMS_TEST_HA === '1' ? false : 'CMS_TEST_HA=1 is not set: the read-replica tests need the Patroni cluster (npm run test:ha:replicas)';

const adminKey = 'read-replicas-admin-key-0123';
const admin = { authorization: `ApiKey ${adminKey}` };
const config = {
  baseUrl: 'http://127.0.0.1',
  locales: { en: { label: 'English' } },
  apiKeys: { [adminKey]: { role: 'admin' } },
  modules: {
    article: {
      extend: '@cms/piece-type',
      options: { label: 'Article', publicApiProjection: { title: 1, slug: 1, category: 1 } },
      fields: { add: { category: { type: 'string' } } },
    },
  },
};
const maxLagMs = 1500;
const pollMs = 100;

interface Cluster {
  readonly writeUrl: string;
  readonly replicaUrls: readonly string[];
  stop(): Promise<void>;
}

interface Connection {
  role: 'primary' | 'replica';
  name: string;
  up: boolean;
  served: number;
  lagMs?: number | null;
  skipped?: boolean;
  error?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cluster (CI's, or one of its own) and its standbys once both stream. */
async function clusterUp(): Promise<Cluster> {
  const cluster = await startHaCluster();
  try {
    // Asked now, not at the cluster's start: a failover test before this one changed who leads.
    return { writeUrl: cluster.writeUrl, replicaUrls: await cluster.standbyUrls(2), stop: () => cluster.stop() };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

function inSchema(url: string, schema: string): string {
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  return withPath.toString();
}

describe('read replicas on the Patroni cluster', { skip }, () => {
  let cluster: Cluster;
  let schema: string;
  let configDir: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let paused = false;

  const call = (server: ServerProcess, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    sendRequest(server.port, method, path, options.body, { ...admin, ...options.headers });

  const connections = async (server: ServerProcess): Promise<Connection[]> => {
    const res = await sendRequest(server.port, 'GET', '/health', undefined, admin);
    assert.equal(res.status, 200, res.text);
    return res.body.connections as Connection[];
  };
  const real = (list: Connection[]) => list.filter((connection) => connection.role === 'replica' && !connection.name.includes('127.0.0.1:1)'));
  const served = async (server: ServerProcess) => {
    const list = await connections(server);
    return { primary: list[0]!.served, replicas: real(list).reduce((sum, connection) => sum + connection.served, 0) };
  };
  const waitFor = async (what: string, test: () => Promise<boolean>, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    while (!(await test())) {
      if (Date.now() > until) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
      await sleep(50);
    }
  };
  const replicasServing = (server: ServerProcess) =>
    waitFor('the replicas serving', async () => real(await connections(server)).every((connection) => connection.up && connection.skipped === false));

  const onReplicas = (sql: string) => Promise.all(cluster.replicaUrls.map((url) => adminQuery(sql, [], url)));
  const maintenance = async (pause: boolean) => {
    const port = Number(new URL(cluster.replicaUrls[0]!).port) + 2570;
    const res = await fetch(`http://127.0.0.1:${port}/config`, { method: 'PATCH', body: JSON.stringify({ pause: pause ? true : null }) });
    assert.equal(res.status, 200, await res.text());
  };
  const pauseReplay = async () => {
    paused = true;
    await maintenance(true);
    await onReplicas('SELECT pg_wal_replay_pause()');
  };
  const resumeReplay = async () => {
    await onReplicas('SELECT pg_wal_replay_resume()');
    await maintenance(false);
    paused = false;
  };
  /** Until every replica has replayed `lsn`, and a poll of the servers has seen it. */
  const replayed = async (lsn: string) => {
    await waitFor(`the replicas replaying ${lsn}`, async () => {
      const rows = await onReplicas(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
      return rows.every((result) => (result[0] as { done: boolean }).done);
    });
    await sleep(3 * pollMs);
  };

  before(async () => {
    cluster = await clusterUp();
    assert.ok(cluster.replicaUrls.length >= 1, 'the cluster has a replica');
    schema = uniqueSchemaName();
    await adminQuery(`CREATE SCHEMA "${schema}"`, [], cluster.writeUrl);
    configDir = await mkdtemp(join(tmpdir(), 'cms-ha-replicas-config-'));
    const configPath = join(configDir, 'cms.config.json');
    await writeFile(configPath, JSON.stringify(config));
    // 127.0.0.1:1: a replica that is down from the start.
    const readUrls = [...cluster.replicaUrls.map((url) => inSchema(url, schema)), inSchema('postgres://postgres@127.0.0.1:1/test', schema)];
    const env = {
      CMS_CONFIG: configPath,
      CMS_DATABASE_URL: inSchema(cluster.writeUrl, schema),
      CMS_DATABASE_READ_URL: readUrls.join(','),
      CMS_LIMIT_READ_REPLICA_POLL: String(pollMs),
      CMS_LIMIT_READ_REPLICA_MAX_LAG: String(maxLagMs),
      CMS_LIMIT_POSTGRES_CONNECT_TIMEOUT: '1000',
    };
    // One after the other: the first migrates the store.
    a = await startServerProcess({ env });
    b = await startServerProcess({ env });
    await replicasServing(a);
    await replicasServing(b);
  });

  after(async () => {
    if (paused) await resumeReplay().catch(() => undefined);
    await Promise.all([a?.stop(), b?.stop()]);
    if (configDir) await rm(configDir, { recursive: true, force: true });
    if (schema && cluster) await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, [], cluster.writeUrl);
    await cluster?.stop();
  });

  it('serves reads without a position from a replica, and lists a replica that is down as skipped', async () => {
    const before = await served(b);
    for (let n = 0; n < 5; n++) {
      const res = await call(b, 'GET', `/api/v1/article?category=none-${n}`);
      assert.equal(res.status, 200, res.text);
    }
    const afterReads = await served(b);
    assert.ok(afterReads.replicas >= before.replicas + 5, `replicas served ${afterReads.replicas - before.replicas} reads`);
    assert.equal(afterReads.primary, before.primary, 'the primary served none of them');
    const down = (await connections(b)).find((connection) => connection.name.includes('127.0.0.1:1)'))!;
    assert.equal(down.up, false);
    assert.equal(down.skipped, true);
    assert.equal(typeof down.error, 'string');
    assert.equal(down.served, 0);
  });

  it('lets a caller read its write at once through another process: the header, and the typed client', async () => {
    await pauseReplay();
    try {
      const created = await call(a, 'POST', '/api/v1/article', { body: { title: 'Seen at once', category: 'ryw' } });
      assert.equal(created.status, 200, created.text);
      const position = String(created.headers['cms-read-after']);
      assert.match(position, /^[0-9A-F]+\/[0-9A-F]+$/);
      const before = await served(b);
      const list = await call(b, 'GET', '/api/v1/article?category=ryw', { headers: { 'cms-read-after': position } });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.results.map((doc: { title: string }) => doc.title), ['Seen at once']);
      const one = await call(b, 'GET', `/api/v1/article/${created.body._id}`, { headers: { 'cms-read-after': position } });
      assert.equal(one.status, 200, one.text);
      // A paused replica has not replayed the write: the primary answered.
      const afterReads = await served(b);
      assert.ok(afterReads.primary > before.primary, 'the primary served the reads after the write');

      // The typed client carries the position by itself, each request to the other process in turn.
      const ports = [a.port, b.port];
      let turn = 0;
      const client = createCmsClient<any>({
        baseUrl: `http://127.0.0.1:${a.port}`,
        apiKey: adminKey,
        fetch: (input, init) => fetch(String(input).replace(`:${a.port}/`, `:${ports[turn++ % 2]!}/`), init),
      });
      const inserted = await client.insert('article', { title: 'Client wrote', category: 'client' });
      const read = await client.list('article', { perPage: 100 });
      assert.ok((read as { results: { _id: string }[] }).results.some((doc) => doc._id === inserted._id), 'the list shows the write');
      const got = await client.get('article', inserted._id);
      assert.equal((got as { title: string }).title, 'Client wrote');
    } finally {
      await resumeReplay();
    }
  });

  it('skips a paused replica once its lag passes the bound, the primary serving its reads, and serves from it again once caught up', async () => {
    await pauseReplay();
    let last = '';
    try {
      // The primary moves on; the paused replicas stay behind it.
      await waitFor(
        'the replicas skipped for their lag',
        async () => {
          const res = await call(a, 'POST', '/api/v1/article', { body: { title: 'Moving on', category: 'lag' } });
          assert.equal(res.status, 200, res.text);
          last = String(res.headers['cms-read-after']);
          const list = real(await connections(b));
          return list.every((connection) => connection.skipped === true && (connection.lagMs ?? 0) > maxLagMs);
        },
        10_000,
      );
      const before = await served(b);
      const list = await call(b, 'GET', '/api/v1/article?category=lag');
      assert.equal(list.status, 200, list.text);
      // Without a position, and still every write: only the primary has them all.
      assert.ok(list.body.results.length >= 2);
      const afterRead = await served(b);
      assert.equal(afterRead.replicas, before.replicas, 'no replica served a read');
      assert.ok(afterRead.primary > before.primary, 'the primary served it');
    } finally {
      await resumeReplay();
    }
    await replayed(last);
    await replicasServing(b);
    const before = await served(b);
    await call(b, 'GET', '/api/v1/article?category=lag-again');
    assert.ok((await served(b)).replicas > before.replicas, 'a caught-up replica serves again');
  });

  it('never serves a stale cached answer after a write, on either process', async () => {
    const created = await call(a, 'POST', '/api/v1/article', { body: { title: 'Before', category: 'cached' } });
    assert.equal(created.status, 200, created.text);
    await replayed(String(created.headers['cms-read-after']));
    const path = '/api/v1/article?category=cached';
    const titles = async (server: ServerProcess, headers: Record<string, string> = {}) => {
      const res = await call(server, 'GET', path, { headers });
      assert.equal(res.status, 200, res.text);
      return res.body.results.map((doc: { title: string }) => doc.title);
    };
    // Built from a replica and kept, on both processes.
    for (const server of [a, b, a, b]) assert.deepEqual(await titles(server), ['Before']);

    await pauseReplay();
    let position: string;
    try {
      const patched = await call(a, 'PATCH', `/api/v1/article/${created.body._id}`, { body: { title: 'After' } });
      assert.equal(patched.status, 200, patched.text);
      position = String(patched.headers['cms-read-after']);
      // Without a position, the lagging replicas answer (the old title, as they hold it): what
      // they build must not be kept as the answer to the new generations.
      for (const server of [b, a]) assert.equal((await titles(server)).length, 1);
      // With the position: the write, whatever the cache or the replicas hold.
      for (const server of [b, a, b]) assert.deepEqual(await titles(server, { 'cms-read-after': position }), ['After']);
      for (const server of [b, a]) assert.equal((await titles(server)).length, 1);
    } finally {
      await resumeReplay();
    }
    await replayed(position);
    // Once the replicas have the write, no caller gets the old answer, with or without a position.
    for (let n = 0; n < 6; n++) {
      assert.deepEqual(await titles(n % 2 ? a : b), ['After'], `read ${n}`);
      assert.deepEqual(await titles(n % 2 ? b : a, { 'cms-read-after': position }), ['After'], `read ${n} with the position`);
    }
  });

  it('refuses a malformed CMS-Read-After with 400 in the error shape', async () => {
    const res = await call(b, 'GET', '/api/v1/article', { headers: { 'cms-read-after': 'not/a position' } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(res.body.data, { header: 'CMS-Read-After' });
  });
});
