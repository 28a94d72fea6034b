import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sendRequest, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { describeOnPostgres, newSchemaDatabase, type SchemaDatabase } from '../helpers/postgres.js';

/*
 * The sync API over writers in two server processes on one store, whose commits interleave: a
 * client that polls the whole time through either process ends with exactly the documents a
 * sync from scratch finds once the writers are done. On PostgreSQL one write is held open (its
 * row locked from outside) while the other process commits: it takes its place in the log at
 * its commit, after theirs, so a client that read past them still gets it.
 */

const adminKey = 'sync-processes-admin-key-0123';
const admin = { authorization: `ApiKey ${adminKey}` };
const config = {
  baseUrl: 'http://127.0.0.1',
  locales: { en: { label: 'English' } },
  apiKeys: { [adminKey]: { role: 'admin' } },
  modules: { article: { extend: '@cms/piece-type', options: { label: 'Article', publicApiProjection: { title: 1 } } } },
};

type Pair = { a: ServerProcess; b: ServerProcess; stop: () => Promise<void> };

async function startPair(env: Record<string, string>): Promise<Pair> {
  const configDir = await mkdtemp(join(tmpdir(), 'cms-sync-config-'));
  const configPath = join(configDir, 'cms.config.json');
  await writeFile(configPath, JSON.stringify(config));
  // One after the other: the first migrates the store.
  const a = await startServerProcess({ env: { CMS_CONFIG: configPath, ...env } });
  const b = await startServerProcess({ env: { CMS_CONFIG: configPath, ...env } }).catch(async (error: unknown) => {
    await a.stop('SIGKILL');
    throw error;
  });
  return { a, b, stop: async () => void (await Promise.all([a.stop(), b.stop()]), await rm(configDir, { recursive: true, force: true })) };
}

async function ok(server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = admin): Promise<any> {
  const res = await sendRequest(server.port, method, path, body, headers);
  assert.equal(res.status, 200, `${method} ${path} on port ${server.port}: ${res.text}`);
  return res.body;
}

/** What a sync client keeps: the documents by `_id`, upserted from items and removed by tombstones. */
class SyncClient {
  readonly docs = new Map<string, string>();
  #token: string | undefined;

  async poll(server: ServerProcess): Promise<void> {
    for (;;) {
      const query = this.#token === undefined ? '' : `&syncToken=${encodeURIComponent(this.#token)}`;
      const page = await ok(server, 'GET', `/api/v1/article/sync?limit=7${query}`, undefined, {});
      for (const item of page.items) this.docs.set(item._id, item.title);
      for (const tombstone of page.deleted) this.docs.delete(tombstone._id);
      this.#token = page.nextPageToken ?? page.nextSyncToken;
      if (page.nextSyncToken) return;
    }
  }
}

/** One process's writers: inserts, updates, deletes, hidings and unpublishes, `width` at a time. */
async function writeMany(server: ServerProcess, prefix: string, rounds: number, width: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      Array.from({ length: width }, async (_unused, lane) => {
        const doc = await ok(server, 'POST', '/api/v1/article', { title: `${prefix} ${round}.${lane}` });
        const one = `/api/v1/article/${encodeURIComponent(doc._id)}`;
        if (lane % 5 === 1) await ok(server, 'PATCH', one, { title: `${prefix} ${round}.${lane} again` });
        if (lane % 5 === 2) await ok(server, 'DELETE', one);
        if (lane % 5 === 3) await ok(server, 'PATCH', one, { visibility: 'loginRequired' });
        if (lane % 5 === 4) await ok(server, 'POST', `${one}/unpublish`);
      }),
    );
  }
}

function scenarios(pair: () => Pair, database?: () => SchemaDatabase): void {
  it('gives a client polling through both processes every change, exactly as the final state says', async () => {
    const { a, b } = pair();
    const client = new SyncClient();
    await client.poll(a);
    let writing = true;
    const polling = (async () => {
      for (let turn = 0; writing; turn++) await client.poll(turn % 2 === 0 ? a : b);
    })();
    const held = database ? await holdWrite(database(), a, b) : Promise.resolve();
    await Promise.all([writeMany(a, 'A', 6, 10), writeMany(b, 'B', 6, 10), held]);
    writing = false;
    await polling;
    await client.poll(b);
    const fresh = new SyncClient();
    await fresh.poll(a);
    assert.ok(fresh.docs.size >= 48, `${fresh.docs.size} documents`);
    assert.deepEqual(new Map([...client.docs].sort()), new Map([...fresh.docs].sort()));
  });
}

/**
 * Locks a published article's row from outside, PATCHes it through process `a` (its
 * transaction open and waiting), lets process `b` commit changes meanwhile, then lets go;
 * resolves once the held write committed.
 */
async function holdWrite(database: SchemaDatabase, a: ServerProcess, b: ServerProcess): Promise<Promise<void>> {
  const doc = await ok(a, 'POST', '/api/v1/article', { title: 'Held' });
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  let write: Promise<unknown> = Promise.resolve();
  // Let go whatever fails: a lock kept would hold the schema's drop too.
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [doc._id]);
    write = ok(a, 'PATCH', `/api/v1/article/${encodeURIComponent(doc._id)}`, { title: 'Held, then committed' });
    for (let index = 0; index < 5; index++) await ok(b, 'POST', '/api/v1/article', { title: `While held ${index}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await holder.query('COMMIT');
    await holder.end();
  }
  return write.then(() => undefined);
}

describe('sync across two server processes on one SQLite file', () => {
  let pair: Pair;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cms-sync-sqlite-'));
    pair = await startPair({ CMS_DATA_DIR: dataDir });
  });
  after(async () => {
    await pair?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  scenarios(() => pair);
});

describeOnPostgres('sync across two server processes on one PostgreSQL schema', () => {
  let pair: Pair;
  let database: SchemaDatabase;
  before(async () => {
    database = await newSchemaDatabase();
    pair = await startPair({ CMS_DATABASE_URL: database.url });
  });
  after(async () => {
    await pair?.stop();
    await database?.drop();
  });
  scenarios(() => pair, () => database);
});
