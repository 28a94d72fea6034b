import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../src/storage/sqlite/driver.js';
import { CountCache } from '../../src/storage/sqlite/count-cache.js';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import { StatementCache, type StatementSource } from '../../src/storage/sqlite/statement-cache.js';
import type { DocumentQuery, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { emptyIndex, makeDoc } from './contract-helpers.js';

// A list page counts its whole selection; the count is kept until the next write to the file,
// whichever connection or process makes it. These tests count the COUNT statements run.

describe('sqlite counts kept until the next write', () => {
  let directory: string;
  let filename: string;
  let adapter: StorageAdapter;
  let reader: BetterSqlite3.Database;
  let cache: CountCache;
  let scans = 0;

  const list: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
  const inCategory = (category: string): DocumentQuery => ({
    ...list,
    conditions: [{ key: 'category', op: 'in', values: [category] }],
  });
  const insert = (store: StorageAdapter, docId: string, category: string) =>
    store.documents.insert(makeDoc({ docId }), { ...emptyIndex(), values: [{ key: 'category', value: category }] });

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'cms-counts-'));
    filename = join(directory, 'cms.sqlite');
    adapter = createSqliteAdapter({ filename });
    await adapter.migrate();
    for (let n = 0; n < 5; n++) await insert(adapter, `a${n}`, n < 3 ? 'news' : 'sports');
    reader = new Database(filename, { readonly: true });
    const statements = new StatementCache(reader);
    const counting: StatementSource = {
      statement(sql) {
        if (sql.startsWith('SELECT COUNT(*)')) scans++;
        return statements.statement(sql);
      },
    };
    cache = new CountCache(counting);
  });

  after(async () => {
    reader?.close();
    await adapter?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('counts each selection once while nothing is written', () => {
    const before = scans;
    assert.equal(cache.count(list), 5);
    assert.equal(cache.count(list), 5);
    assert.equal(cache.count(inCategory('news')), 3);
    assert.equal(cache.count(inCategory('news')), 3);
    assert.equal(cache.count(inCategory('sports')), 2);
    assert.equal(cache.count({ ...list, mode: 'published' }), 0);
    assert.equal(scans - before, 4);
  });

  it('counts again after a write on another connection of this process', async () => {
    assert.equal(cache.count(list), 5);
    const before = scans;
    await insert(adapter, 'b1', 'news');
    assert.equal(cache.count(list), 6);
    assert.equal(cache.count(inCategory('news')), 4);
    assert.equal(cache.count(list), 6);
    assert.equal(scans - before, 2);
  });

  it('counts again after a write by another process (another adapter on the file)', async () => {
    assert.equal(cache.count(inCategory('sports')), 2);
    const other = createSqliteAdapter({ filename });
    try {
      await insert(other, 'c1', 'sports');
      await other.transaction(async (tx) => {
        await tx.documents.remove(['a0:en:draft']);
      });
    } finally {
      await other.close();
    }
    assert.equal(cache.count(inCategory('sports')), 3);
    assert.equal(cache.count(list), 6);
  });

  it('answers through the adapter from the cache, and right after each write', async () => {
    assert.equal(await adapter.documents.count(list), 6);
    await insert(adapter, 'd1', 'news');
    assert.equal(await adapter.documents.count(list), 7);
    await adapter.documents.remove(['d1:en:draft']);
    assert.equal(await adapter.documents.count(list), 6);
  });
});
