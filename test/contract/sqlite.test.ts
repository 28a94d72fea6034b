import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from '../../src/storage/sqlite/driver.js';
import { createSqliteAdapter, type SqliteAdapterOptions } from '../../src/storage/sqlite/sqlite-adapter.js';
import { compileCountQuery, compileFindQuery } from '../../src/storage/sqlite/sqlite-query.js';
import { migrations } from '../../src/storage/sqlite/migrations.js';
import type { DocumentQuery, StorageAdapter, StorageSession } from '../../src/storage/storage-adapter.js';
import { emptyIndex, idsOf, makeDoc, makeIndex, placeOf } from './contract-helpers.js';
import { runStorageContract } from './storage-adapter.contract.js';
import { describeGenerationContract } from './generation.contract.js';
import { describeTransactionHoldsContract } from './transaction-holds.contract.js';
import { makeAttachment } from './attachment-store.contract.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

interface TempAdapter {
  adapter: StorageAdapter;
  filename: string;
  cleanup: () => Promise<void>;
}

async function makeTempAdapter(
  options: Partial<Pick<SqliteAdapterOptions, 'writesPerCommit' | 'walCheckpointPages' | 'onStatement' | 'statistics'>> = {},
): Promise<TempAdapter> {
  const directory = await mkdtemp(join(tmpdir(), 'cms-sqlite-'));
  const filename = join(directory, 'cms.sqlite');
  const adapter = createSqliteAdapter({ attachmentsGenerationKey, filename, ...options });
  const cleanup = () => rm(directory, { recursive: true, force: true });
  return { adapter, filename, cleanup };
}

runStorageContract('sqlite', () => makeTempAdapter());
runStorageContract('sqlite, writes committed in groups', () => makeTempAdapter({ writesPerCommit: 8 }));
/** Two adapters on one file, as two processes have them. */
const makeSqlitePair = async () => {
  const { adapter, filename, cleanup } = await makeTempAdapter({ writesPerCommit: 8 });
  return { adapter, other: createSqliteAdapter({ attachmentsGenerationKey, filename }), cleanup };
};
describeGenerationContract('sqlite', makeSqlitePair);
describeTransactionHoldsContract('sqlite', makeSqlitePair);

describe('sqlite adapter specifics', () => {
  let adapter: StorageAdapter;
  let filename: string;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ adapter, filename, cleanup } = await makeTempAdapter());
    await adapter.migrate();
  });

  after(async () => {
    await adapter.close();
    await cleanup();
  });

  it('keeps a generation row per document version, removed with the version: the table never outgrows the documents', async () => {
    const docs = Array.from({ length: 5 }, (_, i) => makeDoc({ docId: `rows-${i}` }));
    const rows = () => {
      const inspector = new Database(filename, { readonly: true });
      try {
        const count = (sql: string) => inspector.prepare(sql).pluck().get() as number;
        return { versions: count("SELECT count(*) FROM version_generations WHERE id LIKE 'rows-%'"), all: count('SELECT count(*) FROM version_generations'), documents: count('SELECT count(*) FROM documents') };
      } finally {
        inspector.close();
      }
    };
    for (const doc of docs) await adapter.documents.insert(doc, emptyIndex());
    await adapter.transaction(async (tx) => tx.documents.update({ ...docs[0]!, title: 'again' }, emptyIndex()));
    assert.equal(rows().versions, 5, 'one row per version, however often it is written');
    await adapter.documents.remove('article', idsOf(docs));
    const after = rows();
    assert.equal(after.versions, 0, 'removed with their versions');
    assert.equal(after.all, after.documents, 'a row per stored version, no more');
  });

  it('refuses an in-memory database', () => {
    assert.throws(() => createSqliteAdapter({ attachmentsGenerationKey, filename: ':memory:' }), /file/);
  });

  it('keeps the file in WAL mode', () => {
    const inspector = new Database(filename, { readonly: true });
    try {
      assert.equal(inspector.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      inspector.close();
    }
  });

  it('rejects a top-level write inside a transaction instead of deadlocking', async () => {
    await assert.rejects(
      adapter.transaction(() => adapter.documents.remove('article', ['x'])),
      /Nested transaction/,
    );
    assert.equal(await adapter.documents.remove('article', ['x']), 0);
  });

  it('rejects use of a session after its transaction ended', async () => {
    const leaked = await adapter.transaction(async (tx) => tx);
    await assert.rejects(leaked.documents.count({ type: null }), /has ended/);
  });

  it('writes nothing of a document whose index is invalid, and the transaction goes on', async () => {
    const doc = makeDoc({ docId: 'invalid' });
    const invalid = makeIndex({ category: [true as unknown as string] }, { title: 'zebra' });
    await adapter.transaction(async (tx) => {
      await assert.rejects(tx.documents.insert(doc, invalid), /Invalid index value/);
      await tx.documents.insert(makeDoc({ docId: 'valid' }), emptyIndex());
    });
    assert.deepEqual(await adapter.documents.find({ type: 'article', ids: [doc._id] }), []);
    const search = { words: ['zebra'], match: 'any', prefix: false, phrases: [], without: [], texts: 'all' } as const;
    assert.equal(await adapter.documents.count({ type: null, search }), 0);
    assert.equal(await adapter.documents.remove('article', ['valid:en:draft']), 1);
  });

  it('finds words whatever their accents', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'cafe' }), makeIndex({}, { title: 'Crème brûlée café' }));
    const search = { words: ['creme', 'CAFÉ'], match: 'all', prefix: false, phrases: [], without: [], texts: 'all' } as const;
    assert.equal(await adapter.documents.count({ type: null, search }), 1);
    assert.equal(await adapter.documents.count({ type: null, search: { ...search, words: ['brul'], prefix: true } }), 1);
    assert.equal(await adapter.documents.remove('article', ['cafe:en:draft']), 1);
  });

  const queryPlan = (query: DocumentQuery): string => {
    const { sql, params } = compileFindQuery(query);
    const inspector = new Database(filename, { readonly: true });
    try {
      const plan = inspector.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
      return plan.map((step) => step.detail).join('\n');
    } finally {
      inspector.close();
    }
  };

  it('chooses the page of a list from a covering index, then reads only its documents', () => {
    const list = { type: 'article', locale: 'en', mode: 'draft', archived: false, visibility: ['public'] } as const;
    const plan = queryPlan({ ...list, sort: [{ field: 'updatedAt', direction: -1 }], limit: 10, skip: 5000 });
    assert.match(plan, /USING COVERING INDEX documents_list_updated/);
    assert.match(plan, /SEARCH documents USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });

  it('looks documents up by id or doc id through those indexes', () => {
    const list = { type: 'article', locale: 'en', mode: 'draft', archived: false } as const;
    assert.match(queryPlan({ ...list, docIds: ['a', 'b'] }), /USING INDEX documents_doc_id/);
    assert.match(queryPlan({ ...list, ids: ['a:en:draft'] }), /USING INDEX sqlite_autoindex_documents_1/);
  });

  it('gathers a list filter from the values of the list\'s own type, locale and mode', () => {
    const list = { type: 'article', locale: 'en', mode: 'draft', archived: false } as const;
    const { sql, params } = compileCountQuery({ ...list, conditions: [{ key: 'category', op: 'in', values: ['news'] }] });
    const inspector = new Database(filename, { readonly: true });
    try {
      const plan = (inspector.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((s) => s.detail).join('\n');
      assert.match(plan, /SEARCH document_values USING PRIMARY KEY \(type=\? AND locale=\? AND mode=\? AND key=\? AND value=\?\)/, plan);
    } finally {
      inspector.close();
    }
  });

  it('keeps the count of each list scope right through inserts, updates and removals, in and out of transactions', async () => {
    const scopes = { types: ['article', 'author'], modes: ['draft', 'published'] as const };
    for (let n = 0; n < 40; n++) {
      const doc = makeDoc({ docId: `count-${n}`, type: scopes.types[n % 2], mode: scopes.modes[n % 3 === 0 ? 1 : 0] });
      await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
    }
    await adapter.transaction(async (tx) => {
      for (let n = 0; n < 40; n += 3) {
        const doc = makeDoc({ docId: `count-${n}`, type: scopes.types[n % 2], mode: scopes.modes[n % 3 === 0 ? 1 : 0] });
        await tx.documents.update({ ...doc, archived: n % 2 === 0, visibility: n % 5 === 0 ? 'loginRequired' : 'public' }, emptyIndex(placeOf(doc)));
      }
    });
    await adapter.documents.remove('article', [makeDoc({ docId: 'count-4' })._id, makeDoc({ docId: 'count-9', mode: 'published' })._id]);
    await assert.rejects(adapter.transaction(async (tx) => {
      await tx.documents.remove('article', [makeDoc({ docId: 'count-5' })._id]);
      throw new Error('rolled back');
    }));
    const inspector = new Database(filename, { readonly: true });
    try {
      const scanned = (query: DocumentQuery) => {
        const where = Object.entries({ type: query.type, mode: query.mode, archived: query.archived === undefined ? undefined : Number(query.archived) })
          .filter(([, value]) => value !== undefined);
        const visibility = query.visibility ? ` AND visibility IN (${query.visibility.map(() => '?').join(', ')})` : '';
        const sql = `SELECT COUNT(*) FROM documents WHERE locale = 'en'${where.map(([column]) => ` AND ${column} = ?`).join('')}${visibility}`;
        return inspector.prepare(sql).pluck().get(...where.map(([, value]) => value), ...(query.visibility ?? [])) as number;
      };
      let checked = 0;
      for (const type of scopes.types) {
        for (const mode of scopes.modes) {
          for (const archived of [undefined, false, true]) {
            for (const visibility of [undefined, ['public'], ['public', 'loginRequired']]) {
              const query: DocumentQuery = { type, locale: 'en', mode, archived, visibility };
              assert.match(compileCountQuery(query).sql, /document_counts/, 'counted from the kept counts');
              assert.equal(await adapter.documents.count(query), scanned(query), JSON.stringify(query));
              checked += scanned(query) > 0 ? 1 : 0;
            }
          }
        }
      }
      assert.ok(checked > 20, 'most scopes hold documents');
    } finally {
      inspector.close();
    }
  });
});

describe('sqlite checkpoints', () => {
  /** The size of the write-ahead log once 40 versions of 64 KiB each were inserted, each in its own commit (about 16 pages each). */
  async function walBytesAfterWrites(walCheckpointPages: number): Promise<number> {
    const { adapter, filename, cleanup } = await makeTempAdapter({ walCheckpointPages });
    try {
      await adapter.migrate();
      for (let n = 0; n < 40; n++) await adapter.documents.insert(makeDoc({ docId: `big${n}`, filler: 'x'.repeat(64 * 1024) }), emptyIndex());
      return statSync(`${filename}-wal`).size;
    } finally {
      await adapter.close();
      await cleanup();
    }
  }

  it('copies the log into the file once it holds walCheckpointPages pages, and not before', async () => {
    // 40 writes of about 16 pages: about 640 pages in all, below SQLite's default of 1,000.
    const small = await walBytesAfterWrites(100);
    const large = await walBytesAfterWrites(100_000);
    assert.ok(large > 500 * 4096, `without a checkpoint the log holds every write (${large} bytes)`);
    assert.ok(small < 200 * 4096, `checkpointed every 100 pages, the log starts again (${small} bytes)`);
  });
});

describe('sqlite planner statistics', () => {
  /** The rows sqlite_stat1 holds for the documents' indexes, read as another process would. */
  function statisticsOfDocuments(filename: string): number {
    const inspector = new Database(filename, { readonly: true });
    try {
      const exists = inspector.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() !== undefined;
      return exists ? (inspector.prepare("SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'documents'").pluck().get() as number) : 0;
    } finally {
      inspector.close();
    }
  }

  it('refreshes them every statistics.everyMs while open, not only at close', { timeout: 20_000 }, async () => {
    let optimized: (() => void) | undefined;
    const onStatement = (sql: string) => {
      if (/^PRAGMA optimize/i.test(sql)) optimized?.();
    };
    const { adapter, filename, cleanup } = await makeTempAdapter({ onStatement, statistics: { afterRows: 1_000_000, everyMs: 20 } });
    try {
      await adapter.migrate();
      for (let n = 0; n < 5; n++) await adapter.documents.insert(makeDoc({ docId: `s${n}` }), makeIndex({ category: ['news'] }));
      // The next turn after the writes, however few they were, with the adapter open. The
      // adapter's timer keeps no process alive (a server's socket does): this one does meanwhile.
      const alive = setInterval(() => undefined, 1000);
      await new Promise<void>((resolve) => {
        optimized = resolve;
      }).finally(() => clearInterval(alive));
      assert.ok(statisticsOfDocuments(filename) > 0, 'the documents were analyzed');
    } finally {
      await adapter.close();
      await cleanup();
    }
  });
});

describe('sqlite full-text tables', () => {
  let adapter: StorageAdapter;
  let filename: string;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ adapter, filename, cleanup } = await makeTempAdapter({ writesPerCommit: 8 }));
    await adapter.migrate();
  });

  after(async () => {
    await adapter.close();
    await cleanup();
  });

  const found = async (word: string, prefix = false) =>
    idsOf(await adapter.documents.find({ type: null, search: { words: [word], match: 'any', prefix, phrases: [], without: [], texts: 'all' }, sort: [{ field: '_id', direction: 1 }] }));
  const texts = (n: number, word: string) => makeIndex({}, { title: `Title ${n} ${word}`, high: `high${n}`, low: `body ${word} ${n}` });
  const segmentBytes = (inspector: InstanceType<typeof Database>, table: string) =>
    inspector.prepare(`SELECT count(*) || ':' || total(length(block)) FROM ${table}_data`).pluck().get() as string;

  it('holds exactly the texts stored last, through updates, removals, groups and rollbacks', async () => {
    const docs = Array.from({ length: 30 }, (_, n) => makeDoc({ docId: `fts-${n}` }));
    await Promise.all(docs.map((doc, n) => adapter.documents.insert(doc, texts(n, 'apple'))));
    await Promise.all(docs.map((doc, n) => (n % 2 === 0 ? adapter.documents.update(doc, texts(n, 'banana')) : Promise.resolve(true))));
    await adapter.transaction(async (tx) => {
      // Changed twice in one transaction, then back to what the tables hold: nothing to write.
      await tx.documents.update(docs[1]!, texts(1, 'cherry'));
      await tx.documents.update(docs[1]!, texts(1, 'apple'));
      await tx.documents.update(docs[3]!, texts(3, 'cherry'));
      await tx.documents.update(docs[5]!, makeIndex());
    });
    await adapter.documents.remove('article', [docs[7]!._id, docs[8]!._id]);
    await assert.rejects(adapter.transaction(async (tx) => {
      await tx.documents.update(docs[9]!, texts(9, 'cherry'));
      await tx.documents.remove('article', [docs[11]!._id]);
      throw new Error('rolled back');
    }));
    const expected = (word: string) => docs
      .map((doc, n) => ({ id: doc._id, n }))
      .filter(({ n }) => n !== 7 && n !== 8 && n !== 5)
      .filter(({ n }) => (n === 3 ? 'cherry' : n % 2 === 0 ? 'banana' : 'apple') === word)
      .map(({ id }) => id)
      .sort();
    for (const word of ['apple', 'banana', 'cherry']) assert.deepEqual(await found(word), expected(word), word);
    assert.deepEqual(await found('high1', true), [docs[1]!, ...docs.slice(10, 20)].map((doc) => doc._id).sort());
    const inspector = new Database(filename);
    try {
      // FTS5 compares its index with the content table, the texts the 'delete' commands named included.
      for (const table of ['document_search', 'document_words']) {
        inspector.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
      }
      assert.equal(inspector.prepare('SELECT count(*) FROM document_texts').pluck().get(), 27);
    } finally {
      inspector.close();
    }
  });

  it('leaves the full-text tables alone when a write keeps the texts, and the words table when it keeps the title and high texts', async () => {
    const doc = makeDoc({ docId: 'fts-kept' });
    await adapter.documents.insert(doc, texts(0, 'kept'));
    const inspector = new Database(filename, { readonly: true });
    try {
      const before = ['document_search', 'document_words'].map((table) => segmentBytes(inspector, table));
      await adapter.documents.update({ ...doc, title: 'changed' }, texts(0, 'kept'));
      assert.deepEqual(['document_search', 'document_words'].map((table) => segmentBytes(inspector, table)), before);
      await adapter.documents.update(doc, { ...texts(0, 'kept'), search: { ...texts(0, 'kept').search, low: 'another body' } });
      assert.notEqual(segmentBytes(inspector, 'document_search'), before[0]);
      assert.equal(segmentBytes(inspector, 'document_words'), before[1]);
      assert.deepEqual(await found('another'), [doc._id]);
    } finally {
      inspector.close();
    }
  });
});

describe('sqlite writes committed in groups', () => {
  let adapter: StorageAdapter;
  let cleanup: () => Promise<void>;
  let commits = 0;
  let rollbacks = 0;

  before(async () => {
    ({ adapter, cleanup } = await makeTempAdapter({
      writesPerCommit: 4,
      onStatement: (sql) => {
        if (sql === 'COMMIT') commits++;
        if (sql === 'ROLLBACK') rollbacks++;
      },
    }));
    await adapter.migrate();
  });

  after(async () => {
    await adapter.close();
    await cleanup();
  });

  const insert = (docId: string) => (tx: StorageSession) => tx.documents.insert(makeDoc({ docId }), emptyIndex());
  const stored = async () => idsOf(await adapter.documents.find({ type: null, sort: [{ field: '_id', direction: 1 }] }));
  const counted = async <T>(work: () => Promise<T>) => {
    [commits, rollbacks] = [0, 0];
    const result = await work();
    return { result, commits, rollbacks };
  };

  it('commits the writes that wait together, at most writesPerCommit at a time', async () => {
    const ids = ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'];
    const { result, commits } = await counted(() => Promise.all(ids.map((id) => adapter.transaction(async (tx) => (await insert(id)(tx), id)))));
    assert.deepEqual(result, ids);
    assert.equal(commits, 2);
    assert.deepEqual(await stored(), ids.map((id) => `${id}:en:draft`));
    assert.equal(await adapter.documents.remove('article', ids.map((id) => `${id}:en:draft`)), 6);
  });

  it('refuses a write that fails before writing alone, and commits the others of its group once', async () => {
    const failure = new Error('invalid input');
    let runs = 0;
    const { result, commits, rollbacks } = await counted(() =>
      Promise.allSettled([
        adapter.transaction(async (tx) => (runs++, insert('a')(tx))),
        adapter.transaction(async () => Promise.reject(failure)),
        adapter.transaction(insert('b')),
      ]),
    );
    assert.deepEqual(result.map((settled) => settled.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal((result[1] as PromiseRejectedResult).reason, failure);
    assert.deepEqual([runs, commits, rollbacks], [1, 1, 0]);
    assert.deepEqual(await stored(), ['a:en:draft', 'b:en:draft']);
    assert.equal(await adapter.documents.remove('article', ['a:en:draft', 'b:en:draft']), 2);
  });

  it('undoes a write that fails after writing, and runs the writes before it again', async () => {
    const failure = new Error('refused halfway');
    let runs = 0;
    const { result, rollbacks } = await counted(() =>
      Promise.allSettled([
        adapter.transaction(async (tx) => (runs++, insert('a')(tx))),
        adapter.transaction(async (tx) => {
          await insert('half')(tx);
          throw failure;
        }),
        adapter.transaction(insert('b')),
      ]),
    );
    assert.deepEqual(result.map((settled) => settled.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal((result[1] as PromiseRejectedResult).reason, failure);
    assert.deepEqual([runs, rollbacks], [2, 1]);
    assert.deepEqual(await stored(), ['a:en:draft', 'b:en:draft']);
    assert.equal(await adapter.documents.remove('article', ['a:en:draft', 'b:en:draft']), 2);
  });

  it('shows each write of a group the writes before it, as one after another would', async () => {
    const seen = await Promise.all([
      adapter.transaction(insert('first')),
      adapter.transaction(async (tx) => idsOf(await tx.documents.find({ type: 'article', docIds: ['first'] }))),
    ]);
    assert.deepEqual(seen[1], ['first:en:draft']);
    assert.equal(await adapter.documents.remove('article', ['first:en:draft']), 1);
  });
});

describe('sqlite migrations', () => {
  it('keeps reverse ids out of the version\'s row: relating writes leave its data as long as it was', async () => {
    const { adapter, filename, cleanup } = await makeTempAdapter();
    try {
      await adapter.migrate();
      const ada = { ...makeDoc({ docId: 'ada', type: 'person' }), cacheInvalidatedAt: '2024-01-01T00:00:00.000Z' };
      await adapter.documents.insert(ada, emptyIndex());
      const stamp = '2024-02-01T00:00:00.000Z';
      await adapter.documents.relateBack('person', 'first', [{ versionId: ada._id, present: true }], stamp);
      const inspector = new Database(filename, { readonly: true });
      try {
        const dataOf = () => inspector.prepare("SELECT data FROM documents WHERE id = 'ada:en:draft'").pluck().get() as string;
        const once = dataOf();
        const sources = Array.from({ length: 200 }, (_, index) => `source-${index}`);
        for (const source of sources) await adapter.documents.relateBack('person', source, [{ versionId: ada._id, present: true }], stamp);
        assert.equal(dataOf(), once, 'the same bytes: no id in them');
        assert.deepEqual(JSON.parse(once).relatedReverseIds, []);
        const [read] = await adapter.documents.find({ type: 'person', ids: [ada._id] });
        assert.deepEqual(read!.relatedReverseIds, ['first', ...sources]);
      } finally {
        inspector.close();
      }
    } finally {
      await adapter.close();
      await cleanup();
    }
  });

  it('moves the reverse ids a version 16 database keeps in its documents\' data into their rows, in order', async () => {
    const { adapter, filename, cleanup } = await makeTempAdapter();
    try {
      const old = new Database(filename);
      for (const migration of migrations.slice(0, 16)) old.exec(migration);
      old.pragma('user_version = 16');
      const insert = old.prepare(`INSERT INTO documents (id, doc_id, type, locale, mode, slug, archived, visibility,
        title_sortified, created_at, updated_at, data) VALUES (?, ?, 'person', 'en', 'draft', ?, 0, 'public', ?, '', '', ?)`);
      const named = { ...makeDoc({ docId: 'ada', type: 'person' }), relatedReverseIds: ['z', 'a', 'm'], bio: 'b' };
      const emptied = { ...makeDoc({ docId: 'bob', type: 'person' }), relatedReverseIds: [] };
      const never = makeDoc({ docId: 'cy', type: 'person' });
      for (const doc of [named, emptied, never]) insert.run(doc._id, doc.cmsDocId, doc.slug, doc.titleSortified, JSON.stringify(doc));
      old.close();

      await adapter.migrate();
      const found = await adapter.documents.find({ type: 'person', sort: [{ field: '_id', direction: 1 }] });
      assert.deepEqual(found, [named, emptied, never]);
      assert.deepEqual(Object.keys(found[0]!), Object.keys(named), 'the keys in their order');
      const inspector = new Database(filename, { readonly: true });
      try {
        const data = inspector.prepare("SELECT data FROM documents WHERE id = 'ada:en:draft'").pluck().get() as string;
        assert.deepEqual(JSON.parse(data).relatedReverseIds, [], 'out of the data');
      } finally {
        inspector.close();
      }
      await adapter.documents.relateBack('person', 'b', [{ versionId: named._id, present: true }], '2025-01-01T00:00:00.000Z');
      assert.deepEqual((await adapter.documents.find({ type: 'person', ids: [named._id] }))[0]!.relatedReverseIds, ['z', 'a', 'm', 'b']);
    } finally {
      await adapter.close();
      await cleanup();
    }
  });

  it('keeps the generations of a version 14 database under their keys, and counts attachment writes up under the key the adapter is given', async () => {
    const { adapter, filename, cleanup } = await makeTempAdapter();
    try {
      const old = new Database(filename);
      for (const migration of migrations.slice(0, 14)) old.exec(migration);
      old.pragma('user_version = 14');
      old.exec(`INSERT INTO generations (scope, value) VALUES ('article', 5), ('${attachmentsGenerationKey}', 7)`);
      old.close();

      await adapter.migrate();
      assert.equal(await adapter.generation(['article', attachmentsGenerationKey]), '5 7');
      await adapter.attachments.insert(makeAttachment('a'));
      await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      assert.equal(await adapter.generation(['article', attachmentsGenerationKey]), '6 8', 'each write counted once');
      assert.equal(await adapter.generation(['article:draft', 'article:published']), '1 0', 'and under its type and mode from then on');
      const inspector = new Database(filename, { readonly: true });
      try {
        const triggers = inspector.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%generations%' ORDER BY name").pluck().all();
        assert.deepEqual(triggers, ['documents_delete_generation', 'documents_insert_generation', 'documents_update_generation']);
      } finally {
        inspector.close();
      }
    } finally {
      await adapter.close();
      await cleanup();
    }
  });

  it('gives a version 8 database empty search texts and no index plans, so that the next start indexes every type again', async () => {
    const { adapter, filename, cleanup } = await makeTempAdapter();
    try {
      const old = new Database(filename);
      for (const migration of migrations.slice(0, 8)) old.exec(migration);
      old.pragma('user_version = 8');
      old.prepare(`INSERT INTO documents (id, doc_id, type, locale, mode, slug, archived, visibility,
        title_sortified, created_at, updated_at, data) VALUES ('a:en:draft', 'a', 'article', 'en', 'draft', 'a', 0, 'public', '', '', '', ?)`)
        .run(JSON.stringify(makeDoc({ docId: 'a' })));
      old.prepare('INSERT INTO document_search (rowid, title) VALUES (1, ?)').run('old words');
      old.close();

      await adapter.migrate();
      assert.equal(await adapter.indexPlans.digestOf('article'), null);
      assert.deepEqual(idsOf(await adapter.documents.versionsAfter('article', null, 10)), ['a:en:draft']);
      await adapter.documents.update(makeDoc({ docId: 'a' }), makeIndex({}, { title: 'new words' }));
      await adapter.indexPlans.record('article', 'plan-1');
      assert.equal(await adapter.indexPlans.digestOf('article'), 'plan-1');
      const search = (word: string) => adapter.documents.find({ type: null, search: { words: [word], match: 'any', prefix: false, phrases: [], without: [], texts: 'all' } });
      assert.deepEqual(idsOf(await search('new')), ['a:en:draft']);
      assert.deepEqual(idsOf(await search('old')), []);
    } finally {
      await adapter.close();
      await cleanup();
    }
  });

  it('moves the filter values of a version 4 database into the scope of their documents', async () => {
    const { adapter, filename, cleanup } = await makeTempAdapter();
    try {
      const old = new Database(filename);
      for (const migration of migrations.slice(0, 4)) old.exec(migration);
      old.pragma('user_version = 4');
      const insert = old.prepare(`INSERT INTO documents (id, doc_id, type, locale, mode, slug, archived, visibility,
        title_sortified, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?, 0, 'public', '', '', '', ?)`);
      const a = insert.run('a:en:draft', 'a', 'article', 'en', 'draft', 'a', JSON.stringify(makeDoc({ docId: 'a' }))).lastInsertRowid;
      const u = insert.run('u', 'u', '@cms/user', '', '', 'u', JSON.stringify(makeDoc({ docId: 'u', type: '@cms/user' }))).lastInsertRowid;
      old.prepare('INSERT INTO document_values (key, value, seq) VALUES (?, ?, ?)').run('category', 'news', a);
      old.prepare('INSERT INTO document_values (key, value, seq) VALUES (?, ?, ?)').run('role', 'admin', u);
      old.close();

      await adapter.migrate();
      const inspector = new Database(filename, { readonly: true });
      try {
        assert.deepEqual(inspector.prepare('SELECT type, locale, mode, key, value FROM document_values ORDER BY key').all(), [
          { type: 'article', locale: 'en', mode: 'draft', key: 'category', value: 'news' },
          { type: '@cms/user', locale: '', mode: '', key: 'role', value: 'admin' },
        ]);
        assert.equal(inspector.pragma('user_version', { simple: true }), migrations.length);
      } finally {
        inspector.close();
      }
      const found = await adapter.documents.find({
        type: 'article', locale: 'en', mode: 'draft', conditions: [{ key: 'category', op: 'in', values: ['news'] }],
      });
      assert.deepEqual(found.map((doc) => doc._id), ['a:en:draft']);
    } finally {
      await adapter.close();
      await cleanup();
    }
  });
});
