import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AppConfig } from '../../src/content/app-config.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { DocumentIndexer } from '../../src/content/indexing/document-indexer.js';
import { sortify } from '../../src/core/text.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import Database from '../../src/storage/sqlite/driver.js';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import type { StoredDocument } from '../../src/storage/storage-adapter.js';
import { cheapPasswordHasher, keys, testConfig } from '../helpers/test-app.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

// The hot paths must not cost more as the store grows: a list page, a get-one, an insert, a PATCH
// and a publish run the same statements at 1,000 and at 20,000 articles, and read about as many
// database pages.
// Pages, not time: the store is opened without a memory map, so every page a request touches
// is one read call of the process, counted by Linux in /proc/self/io, on a cold page cache
// (a fresh adapter per request). A B-tree one level deeper costs a page per descent; a scan of
// the type, the locale or the slugs costs hundreds.

const sizes = [1_000, 20_000] as const;
const procIo = '/proc/self/io';
const words = 'garden river market winter castle harbor engine planet forest violin lantern meadow'.split(' ');

interface Store {
  dataDir: string;
  config: AppConfig;
  /** A published article's id, and the slug every article but the first shares the base of. */
  someId: string;
  /** How many articles it holds. */
  count: number;
}

interface Cost {
  statements: number;
  pages: number;
}

function readCalls(): number {
  const match = /^syscr:\s*(\d+)$/m.exec(readFileSync(procIo, 'utf8'));
  return Number(match![1]);
}

const docIdOf = (n: number) => `seed${String(n).padStart(20, '0')}`;

/**
 * The article of the test config as the service would store it, one version. Every article
 * relates to the first (`_related`), which therefore names all the others among its reverse ids.
 */
function article(n: number, mode: 'draft' | 'published', count: number): StoredDocument {
  const docId = docIdOf(n);
  const title = `Seeded ${words[n % words.length]} article ${n}`;
  const time = new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString();
  const text = Array.from({ length: 40 }, (_, i) => words[(n * 7 + i * 3) % words.length]).join(' ');
  return {
    _id: `${docId}:en:${mode}`,
    cmsDocId: docId,
    cmsLocale: `en:${mode}`,
    cmsMode: mode,
    type: 'article',
    metaType: 'doc',
    title,
    slug: `seeded-article-${n}`,
    titleSortified: sortify(title),
    visibility: 'public',
    archived: false,
    category: ['news', 'sports', 'culture'][n % 3],
    priority: n % 100,
    tags: n % 2 === 0 ? ['news'] : ['tech'],
    color: 'red',
    authorIds: [],
    relatedIds: n === 0 ? [] : [docIdOf(0)],
    ...(n === 0 && { relatedReverseIds: Array.from({ length: count - 1 }, (_, k) => docIdOf(k + 1)) }),
    body: { _id: `area${n}`, metaType: 'area', items: [{ _id: `widget${n}`, metaType: 'widget', type: '@cms/rich-text', content: `<p>${text}</p>` }] },
    links: [],
    createdAt: time,
    updatedAt: time,
    ...(mode === 'published' ? { lastPublishedAt: time } : { modified: false, lastPublishedAt: time }),
  };
}

/** A store of `count` published articles (draft and published versions), written in one transaction. */
async function seedStore(count: number): Promise<Store> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-cost-'));
  const config = await loadAppConfig({ config: testConfig(), env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent' }, cwd: dataDir });
  const adapter = createSqliteAdapter({ attachmentsGenerationKey, filename: databaseFile(config) });
  await adapter.migrate();
  const indexer = new DocumentIndexer(createFieldTypeRegistry());
  const type = config.pieceTypes.get('article')!;
  await adapter.transaction(async (tx) => {
    for (let n = 0; n < count; n++) {
      for (const mode of ['draft', 'published'] as const) {
        const doc = article(n, mode, count);
        const { index, properties } = indexer.index(type, doc);
        await tx.documents.insert({ ...doc, ...properties }, index);
      }
    }
  });
  // Indexed by the plan the app would index by: its start finds nothing to index again.
  await adapter.indexPlans.record('article', indexer.planDigest(type));
  await adapter.close();
  return { dataDir, config, someId: docIdOf(Math.floor(count / 2)), count };
}

/**
 * Closing an adapter gathers the planner's statistics (PRAGMA optimize); a server filled by its
 * clients runs without them until it first closes. The plans must hold without them (with them,
 * SQLite found the taken slugs by a range even when the query's OR hid it; without, it walked
 * every slug of the locale).
 */
function forgetStatistics(filename: string): void {
  const connection = new Database(filename);
  try {
    const tables = connection.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'").pluck().all() as string[];
    for (const table of tables) connection.exec(`DROP TABLE ${table}`);
  } finally {
    connection.close();
  }
}

function databaseFile(config: AppConfig): string {
  return config.databaseUrl.replace(/^sqlite:/, '');
}

/** The statements and pages one request costs, on an app whose store has just been opened. */
async function costOf(store: Store, request: (app: FastifyInstance) => Promise<number>): Promise<Cost> {
  forgetStatistics(databaseFile(store.config));
  let statements = 0;
  let counting = false;
  const storage = createSqliteAdapter({
    attachmentsGenerationKey,
    filename: databaseFile(store.config),
    memoryMapped: false,
    onStatement: () => {
      if (counting) statements++;
    },
  });
  const app = await buildApp(store.config, { storage, passwordHasher: cheapPasswordHasher() });
  try {
    const before = readCalls();
    counting = true;
    const status = await request(app);
    counting = false;
    const pages = readCalls() - before;
    assert.equal(status, 200);
    return { statements, pages };
  } finally {
    await app.close();
    await storage.close();
  }
}

const headers = { authorization: `ApiKey ${keys.admin}`, 'content-type': 'application/json' };

// A freshly opened app has no kept counts: the list page's total comes from the counts the
// triggers keep per list scope (migration 8), as it does after every write.

/** Run `run` of a write takes an article of its own, as the bench's writes do, so the three runs cost alike. */
const draftOf = (store: Store, run: number) => `${docIdOf(Math.floor(store.count / 3) + run)}:en:draft`;

// The admin's list request (admin/src/list/list-state.ts): its projection, the choices of its
// four choice filters, and `fallback=true`, which it sent in every locale, this one without a chain.
const adminList = '/api/v1/article?cmsLocale=en&cmsMode=draft&page=1&perPage=10&project[title]=1&project[updatedAt]=1'
  + '&project[_edit]=1&choices=tags,color,_author,_related&fallback=true';

const requests: Record<string, (store: Store, run: number) => (app: FastifyInstance) => Promise<number>> = {
  'anonymous list page': () => async (app) => (await app.inject({ method: 'GET', url: '/api/v1/article?page=2' })).statusCode,
  'admin list page with choices and fallback': () => async (app) => (await app.inject({ method: 'GET', url: adminList, headers })).statusCode,
  'get one': (store) => async (app) =>
    (await app.inject({ method: 'GET', url: `/api/v1/article/${store.someId}`, headers })).statusCode,
  insert: () => async (app) => {
    const body = { title: 'Seeded river article', category: 'news', priority: 3, body: { metaType: 'area', items: [] } };
    return (await app.inject({ method: 'POST', url: '/api/v1/article', headers, payload: JSON.stringify(body) })).statusCode;
  },
  'patch of the title': (store, run) => async (app) => {
    const payload = JSON.stringify({ title: `Patched river article ${run}` });
    return (await app.inject({ method: 'PATCH', url: `/api/v1/article/${draftOf(store, run)}`, headers, payload })).statusCode;
  },
  publish: (store, run) => async (app) =>
    (await app.inject({ method: 'POST', url: `/api/v1/article/${draftOf(store, run)}/publish`, headers })).statusCode,
};

describe('hot paths cost the same at 1,000 and 20,000 articles (sqlite)', { skip: !existsSync(procIo) && 'needs /proc/self/io' }, () => {
  const stores = new Map<number, Store>();

  before(async () => {
    for (const size of sizes) stores.set(size, await seedStore(size));
  });

  after(async () => {
    for (const store of stores.values()) await rm(store.dataDir, { recursive: true, force: true });
  });

  for (const [name, makeRequest] of Object.entries(requests)) {
    it(name, async (t) => {
      const costs: Cost[] = [];
      for (const size of sizes) {
        const store = stores.get(size)!;
        // The median of three fresh opens: an insert now and then merges full-text segments.
        const runs: Cost[] = [];
        for (let run = 0; run < 3; run++) runs.push(await costOf(store, makeRequest(store, run)));
        runs.sort((a, b) => a.pages - b.pages);
        costs.push(runs[1]!);
      }
      const [small, large] = costs as [Cost, Cost];
      const detail = `1,000: ${JSON.stringify(small)}; 20,000: ${JSON.stringify(large)}`;
      t.diagnostic(detail);
      assert.equal(large.statements, small.statements, `statements per request grew with the store (${detail})`);
      // Twenty times the documents: a B-tree one level deeper here and there, never a scan.
      assert.ok(large.pages <= small.pages * 1.5 + 8, `pages read per request grew with the store (${detail})`);
      assert.ok(small.pages > 0, `no pages read: the count does not see the store's reads (${detail})`);
    });
  }
});
