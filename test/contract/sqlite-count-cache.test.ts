import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../src/storage/sqlite/driver.js';
import { CountsUntilWrite } from '../../src/storage/sqlite/counts-until-write.js';
import { createSqliteDocumentStore } from '../../src/storage/sqlite/sqlite-document-store.js';
import { withListReads } from '../../src/storage/sqlite/sqlite-list-reads.js';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import { StatementCache, type StatementSource } from '../../src/storage/sqlite/statement-cache.js';
import type { DocumentQuery, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { emptyIndex, makeDoc } from './contract-helpers.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

// A list page counts its whole selection; the count is kept until the next write to the file,
// whichever connection or process makes it. These tests count the COUNT statements run (and the
// reads of the kept counts of whole list scopes, which a list without filters makes instead).

describe('sqlite counts kept until the next write', () => {
  let directory: string;
  let filename: string;
  let adapter: StorageAdapter;
  let reader: BetterSqlite3.Database;
  let cache: CountsUntilWrite;
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
    adapter = createSqliteAdapter({ attachmentsGenerationKey, filename });
    await adapter.migrate();
    for (let n = 0; n < 5; n++) await insert(adapter, `a${n}`, n < 3 ? 'news' : 'sports');
    reader = new Database(filename, { readonly: true });
    const statements = new StatementCache(reader);
    const counting: StatementSource = {
      statement(sql) {
        if (sql.startsWith('SELECT COUNT(*)') || sql.includes('FROM document_counts')) scans++;
        return statements.statement(sql);
      },
    };
    cache = new CountsUntilWrite(counting);
  });

  after(async () => {
    reader?.close();
    await adapter?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('counts each selection once while nothing is written', async () => {
    const before = scans;
    assert.equal(await cache.count(list), 5);
    assert.equal(await cache.count(list), 5);
    assert.equal(await cache.count(inCategory('news')), 3);
    assert.equal(await cache.count(inCategory('news')), 3);
    assert.equal(await cache.count(inCategory('sports')), 2);
    assert.equal(await cache.count({ ...list, mode: 'published' }), 0);
    assert.equal(scans - before, 4);
  });

  it('counts again after a write on another connection of this process', async () => {
    assert.equal(await cache.count(list), 5);
    const before = scans;
    await insert(adapter, 'b1', 'news');
    assert.equal(await cache.count(list), 6);
    assert.equal(await cache.count(inCategory('news')), 4);
    assert.equal(await cache.count(list), 6);
    assert.equal(scans - before, 2);
  });

  it('counts again after a write by another process (another adapter on the file)', async () => {
    assert.equal(await cache.count(inCategory('sports')), 2);
    const other = createSqliteAdapter({ attachmentsGenerationKey, filename });
    try {
      await insert(other, 'c1', 'sports');
      await other.transaction(async (tx) => {
        await tx.documents.remove('article', ['a0:en:draft']);
      });
    } finally {
      await other.close();
    }
    assert.equal(await cache.count(inCategory('sports')), 3);
    assert.equal(await cache.count(list), 6);
  });

  it('answers through the adapter from the cache, and right after each write', async () => {
    assert.equal(await adapter.documents.count(list), 6);
    await insert(adapter, 'd1', 'news');
    assert.equal(await adapter.documents.count(list), 7);
    await adapter.documents.remove('article', ['d1:en:draft']);
    assert.equal(await adapter.documents.count(list), 6);
  });
});

describe('sqlite filtered pages, read the cheaper way', () => {
  let directory: string;
  let adapter: StorageAdapter;
  let reader: BetterSqlite3.Database;
  let store: ReturnType<typeof withListReads>;
  const ran: string[] = [];

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'cms-probes-'));
    const filename = join(directory, 'cms.sqlite');
    adapter = createSqliteAdapter({ attachmentsGenerationKey, filename });
    await adapter.migrate();
    await adapter.transaction(async (tx) => {
      for (let n = 0; n < 100; n++) {
        const category = n < 2 ? 'rare' : n % 2 === 0 ? 'news' : 'other';
        const updatedAt = new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString();
        await tx.documents.insert(makeDoc({ docId: `d${String(n).padStart(3, '0')}`, updatedAt }), {
          ...emptyIndex(),
          values: [{ key: 'category', value: category }],
        });
      }
    });
    reader = new Database(filename, { readonly: true });
    const statements = new StatementCache(reader);
    const recording: StatementSource = {
      statement(sql) {
        if (sql.startsWith('SELECT documents.data')) ran.push(sql);
        return statements.statement(sql);
      },
    };
    store = withListReads(createSqliteDocumentStore(recording), recording, new CountsUntilWrite(recording), undefined);
  });

  after(async () => {
    reader?.close();
    await adapter?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const page = (category: string, skip: number): DocumentQuery => ({
    type: 'article',
    locale: 'en',
    mode: 'draft',
    archived: false,
    conditions: [{ key: 'category', op: 'in', values: [category] }],
    sort: [{ field: 'updatedAt', direction: -1 }],
    skip,
    limit: 5,
  });
  const probed = (sql: string) => sql.includes('EXISTS');

  it('tests walked entries for the early pages of a broad filter, gathers for a narrow one or a deep page', async () => {
    ran.length = 0;
    const first = await store.find(page('news', 0));
    assert.deepEqual(first.map((doc) => doc.cmsDocId), ['d098', 'd096', 'd094', 'd092', 'd090']);
    const rare = await store.find(page('rare', 0));
    assert.deepEqual(rare.map((doc) => doc.cmsDocId), ['d001', 'd000']);
    const deep = await store.find(page('news', 40));
    assert.deepEqual(deep.map((doc) => doc.cmsDocId), ['d018', 'd016', 'd014', 'd012', 'd010']);
    assert.deepEqual(ran.map(probed), [true, false, false]);
  });
});
