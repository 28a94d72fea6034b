import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../src/storage/sqlite/driver.js';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import { compileCountQuery, compileDistinctValuesQuery, compileFindQuery, compileHeldValuesQuery } from '../../src/storage/sqlite/sqlite-query.js';
import type { CompiledQuery } from '../../src/storage/sqlite/compiled-query.js';
import type {
  DocumentIndex,
  DocumentQuery,
  StorageAdapter,
  StoredDocument,
  TextSearch,
} from '../../src/storage/storage-adapter.js';
import { emptyIndex } from './contract-helpers.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

// The list endpoint's queries on a store of realistic size must be served by indexes: a plan
// that reads every document of the store would make each page cost as much as the whole store.

const articleCount = 50_000;
const categories = ['news', 'sports', 'culture', 'science', 'travel', 'food', 'health', 'money'];
const authorCount = 500;
const vocabulary = (
  'garden river market winter castle harbor engine planet forest violin ' +
  'lantern meadow pepper canyon rocket silver thunder velvet orchard glacier'
).split(' ');

/** One generated article and what its index holds, for computing expected results. */
interface Article {
  doc: StoredDocument;
  index: DocumentIndex;
  category: string[];
  priority: number;
  authorIds: string[];
  tagged: boolean;
  zebra: boolean;
}

describe('sqlite query plans on 50,000 documents', () => {
  let adapter: StorageAdapter;
  let inspector: BetterSqlite3.Database;
  let cleanup: () => Promise<void>;
  const articles = makeArticles(articleCount);

  before(async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cms-plans-'));
    cleanup = () => rm(directory, { recursive: true, force: true });
    const filename = join(directory, 'cms.sqlite');
    adapter = createSqliteAdapter({ attachmentsGenerationKey, filename });
    await adapter.migrate();
    await adapter.transaction(async (tx) => {
      for (const { doc, index } of articles) await tx.documents.insert(doc, index);
      for (let n = 0; n < 1000; n++) await tx.documents.insert(makeAuthor(n), emptyIndex());
    });
    inspector = new Database(filename, { readonly: true });
  });

  after(async () => {
    inspector?.close();
    await adapter?.close();
    await cleanup?.();
  });

  const list: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
  const listed = (article: Article): boolean => !article.doc.archived;
  const byUpdated = [{ field: 'updatedAt', direction: -1 }] as const;
  const page = { sort: byUpdated, limit: 20 };
  const search = (words: string[], options: Partial<TextSearch> = {}): TextSearch => ({
    words,
    match: 'any',
    prefix: false,
    phrases: [],
    without: [],
    texts: 'all',
    ...options,
  });

  const cases: { name: string; query: DocumentQuery; expected: (article: Article) => boolean }[] = [
    { name: 'unfiltered, by updatedAt', query: { ...list, ...page }, expected: listed },
    {
      name: 'in on a select key',
      query: { ...list, ...page, conditions: [{ key: 'category', op: 'in', values: ['news', 'food'] }] },
      expected: (a) => listed(a) && a.category.some((c) => c === 'news' || c === 'food'),
    },
    {
      name: 'all on a select key',
      query: { ...list, ...page, conditions: [{ key: 'category', op: 'all', values: ['news', 'sports'] }] },
      expected: (a) => listed(a) && a.category.includes('news') && a.category.includes('sports'),
    },
    {
      name: 'range on an integer key',
      query: { ...list, ...page, conditions: [{ key: 'priority', op: 'range', min: 100, max: 199 }] },
      expected: (a) => listed(a) && a.priority >= 100 && a.priority <= 199,
    },
    {
      name: 'in on relationship ids',
      query: { ...list, ...page, conditions: [{ key: 'authorIds', op: 'in', values: ['author-7'] }] },
      expected: (a) => listed(a) && a.authorIds.includes('author-7'),
    },
    {
      name: 'none',
      query: { ...list, ...page, conditions: [{ key: 'tags', op: 'none' }] },
      expected: (a) => listed(a) && !a.tagged,
    },
    {
      name: 'a search',
      query: { ...list, ...page, search: search(['zebra']) },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'a search by relevance',
      query: { ...list, ...page, search: search(['zebra']), order: 'relevance' },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'an autocomplete search',
      query: { ...list, ...page, search: search(['zeb'], { prefix: true }) },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'an autocomplete search by relevance',
      query: { ...list, ...page, search: search(['zeb'], { prefix: true, match: 'all' }), order: 'relevance' },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'an autocomplete of public texts by relevance',
      query: { ...list, ...page, visibility: ['public'], search: search(['zebra'], { prefix: true, match: 'all', texts: 'public' }), order: 'relevance' },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'a search and a filter',
      query: {
        ...list,
        ...page,
        search: search(['zebra']),
        conditions: [{ key: 'category', op: 'in', values: ['science'] }],
      },
      expected: (a) => listed(a) && a.zebra && a.category.includes('science'),
    },
    {
      name: 'what an anonymous caller may see, by relevance',
      query: { ...list, ...page, visibility: ['public'], search: search(['zebra'], { texts: 'public' }), order: 'relevance' },
      expected: (a) => listed(a) && a.zebra,
    },
    {
      name: 'by titleSortified',
      query: { ...list, sort: [{ field: 'titleSortified', direction: 1 }], limit: 20 },
      expected: listed,
    },
  ];

  for (const { name, query, expected } of cases) {
    it(`serves ${name} from indexes, and counts right`, async () => {
      assertIndexed(plan(compileFindQuery(query)));
      assertIndexed(plan(compileCountQuery(query)));
      const count = articles.filter(expected).length;
      assert.ok(count > 0, 'the case selects some documents');
      assert.equal(await adapter.documents.count(query), count);
      const found = await adapter.documents.find(query);
      assert.equal(found.length, Math.min(count, 20));
      const byId = new Map(articles.map((article) => [article.doc._id, article]));
      for (const doc of found) assert.ok(expected(byId.get(doc._id)!), `${doc._id} matches`);
    });
  }

  it('starts a keyset page at its bound in the list index: a deep page walks no entry before it', async () => {
    const sorts = [
      { sort: byUpdated, range: /documents_list_updated \(type=\? AND locale=\? AND mode=\? AND archived=\? AND updated_at<\?\)/ },
      { sort: [{ field: 'titleSortified', direction: 1 }] as const, range: /documents_list_title \(type=\? AND locale=\? AND mode=\? AND archived=\? AND title_sortified>\?\)/ },
    ];
    for (const { sort, range } of sorts) {
      const deep = await adapter.documents.find({ ...list, sort, skip: 10_000, limit: 21 });
      const last = deep[0]!;
      const values = sort.map(({ field }) => last[field] as string);
      const bounded: DocumentQuery = { ...list, sort, after: { values, id: last._id }, limit: 20 };
      assert.match(plan(compileFindQuery(bounded)), range);
      assert.deepEqual(idsOfFound(await adapter.documents.find(bounded)), idsOfFound(deep.slice(1)));
    }
  });

  it('ranks a keyset bound of a search by relevance from indexes, the bound\'s document among the matches', async () => {
    for (const ranked of cases.filter(({ query }) => query.order === 'relevance').map(({ query }) => query)) {
      const [, second, ...rest] = await adapter.documents.find({ ...ranked, limit: 12 });
      const values = (ranked.sort ?? []).map(({ field }) => second![field] as string);
      const bounded: DocumentQuery = { ...ranked, after: { values, id: second!._id }, limit: 10 };
      assertIndexed(plan(compileFindQuery(bounded)));
      assert.deepEqual(idsOfFound(await adapter.documents.find(bounded)), idsOfFound(rest));
    }
  });

  it('counts a search from its matches, not by walking the list scope', () => {
    const searches = cases.filter(({ query }) => query.search !== undefined);
    assert.ok(searches.length >= 4);
    for (const { name, query } of searches) {
      const steps = plan(compileCountQuery(query));
      // The first table read is a full-text index (an autocomplete's two, merged, come first too).
      const firstRead = steps.split('\n').find((step) => /^(SCAN|SEARCH) /.test(step));
      assert.match(firstRead ?? '', /^SCAN document_(search|words) VIRTUAL TABLE/, `${name}\n${steps}`);
      assert.doesNotMatch(steps, /documents_list_/, `${name}\n${steps}`);
    }
  });

  it('pages a filter by testing each entry of the list index walk, from indexes and with the same results', () => {
    const filtered = cases.filter(({ query }) => (query.conditions?.length ?? 0) > 0 && query.search === undefined);
    assert.ok(filtered.length >= 4);
    for (const { name, query, expected } of filtered) {
      const probing = compileFindQuery(query, { probeConditions: true });
      const steps = plan(probing);
      assertIndexed(steps);
      assert.doesNotMatch(steps, /TEMP B-TREE/, `${name}\n${steps}`);
      const ids = (compiled: CompiledQuery) =>
        (inspector.prepare(compiled.sql).pluck().all(...compiled.params) as string[]).map((data) => (JSON.parse(data) as StoredDocument)._id);
      const probed = ids(probing);
      assert.deepEqual(probed, ids(compileFindQuery(query)), name);
      const byId = new Map(articles.map((article) => [article.doc._id, article]));
      for (const id of probed) assert.ok(expected(byId.get(id)!), `${name}: ${id} matches`);
    }
  });

  it('counts and pages what an anonymous caller may see without reading a document', async () => {
    const publicOnly: DocumentQuery = { ...list, visibility: ['public'] };
    // The count of a whole list scope reads the kept counts (migration 8), not the list.
    assert.match(plan(compileCountQuery(publicOnly)), /SEARCH document_counts USING PRIMARY KEY/);
    const sorts = (['updatedAt', 'createdAt', 'titleSortified'] as const).flatMap((field) =>
      ([1, -1] as const).map((direction) => [{ field, direction }] as const),
    );
    for (const sort of sorts) {
      const deep: DocumentQuery = { ...publicOnly, sort, skip: 20_000, limit: 20 };
      const steps = plan(compileFindQuery(deep));
      // The page is chosen from index entries; documents are read by seq, one per result.
      assert.match(steps, /USING COVERING INDEX documents_list_/, steps);
      assert.match(steps, /SEARCH documents USING INTEGER PRIMARY KEY/, steps);
      // The id tie-break follows the sort's direction, so the index walk is the whole order:
      // nothing of the 20,000 skipped entries is sorted.
      assert.doesNotMatch(steps, /TEMP B-TREE/, steps);
    }
    const live = articles.filter(listed);
    assert.equal(await adapter.documents.count(publicOnly), live.length);
    const found = await adapter.documents.find({ ...publicOnly, sort: byUpdated, skip: 20_000, limit: 3 });
    const expected = live
      .map((a) => a.doc)
      .sort((x, y) => (x.updatedAt === y.updatedAt ? (x._id < y._id ? 1 : -1) : x.updatedAt < y.updatedAt ? 1 : -1))
      .slice(20_000, 20_003);
    assert.deepEqual(found.map((doc) => doc._id), expected.map((doc) => doc._id));
  });

  it('serves archived and live alike from indexes', () => {
    // Only planned: the page sorts the whole type (the list indexes order within archived or
    // live), which reads every row and would make this test slow without telling more.
    const query: DocumentQuery = { ...list, archived: undefined, ...page };
    assertIndexed(plan(compileFindQuery(query)));
    assertIndexed(plan(compileCountQuery(query)));
  });

  it('serves the choices of a filter from indexes, and counts right', async () => {
    const query: DocumentQuery = { ...list, conditions: [{ key: 'priority', op: 'range', max: 99 }] };
    assertIndexed(plan(compileDistinctValuesQuery(query, 'category')));
    const selected = articles.filter((a) => listed(a) && a.priority <= 99);
    const expected = categories
      .map((value) => ({ value, count: selected.filter((a) => a.category.includes(value)).length }))
      .filter(({ count }) => count > 0)
      .sort((x, y) => (x.value < y.value ? -1 : 1));
    assert.deepEqual(await adapter.documents.distinctValues(query, 'category'), expected);
  });

  it('walks the values of a whole list along the filter index, a document looked up per step, as counting finds them', async () => {
    const steps = plan(compileHeldValuesQuery(list, 'category')!);
    assertIndexed(steps);
    // Each step: the next value of the key above the last one, then that value's entries until
    // one is of a listed document, found by seq. Nothing read grows with the list but the values.
    assert.match(steps, /SEARCH v USING PRIMARY KEY \(type=\? AND locale=\? AND mode=\? AND key=\? AND value>\?\)/, steps);
    assert.match(steps, /SEARCH documents EXISTS USING INTEGER PRIMARY KEY \(rowid=\?\)/, steps);
    assert.doesNotMatch(steps, /documents_list_/, steps);
    for (const key of ['category', 'priority', 'authorIds', 'tags']) {
      const counted: unknown[] = (await adapter.documents.distinctValues(list, key)).map(({ value }) => value);
      assert.ok(counted.length > 0, key);
      assert.deepEqual(await adapter.documents.heldValues(list, key), counted, key);
    }
    // Under a filter, values no listed document holds would have every entry read: those count.
    assert.equal(compileHeldValuesQuery({ ...list, conditions: [{ key: 'tags', op: 'none' }] }, 'category'), undefined);
  });

  it('looks documents up by id or doc id through their indexes', () => {
    const ids = ['article-1:en:draft', 'article-2:en:draft'];
    const docIds = ['article-1', 'article-2'];
    const lookups: [DocumentQuery, RegExp][] = [
      [{ ...list, ids }, /USING INDEX sqlite_autoindex_documents_1 \(id=\?\)/],
      [{ ...list, ids, order: 'ids' }, /USING INDEX sqlite_autoindex_documents_1 \(id=\?\)/],
      [{ ...list, ...page, docIds, order: 'ids' }, /USING INDEX documents_doc_id \(doc_id=\?\)/],
      [{ ...list, ...page, docIds, conditions: [{ key: 'tags', op: 'none' }] }, /USING INDEX documents_doc_id/],
    ];
    for (const [query, index] of lookups) {
      const steps = plan(compileFindQuery(query));
      assertIndexed(steps);
      assert.match(steps, index);
    }
  });

  function plan({ sql, params }: CompiledQuery): string {
    const steps = inspector.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    return steps.map((step) => step.detail).join('\n');
  }
});

function idsOfFound(docs: readonly StoredDocument[]): string[] {
  return docs.map((doc) => doc._id);
}

/** No step reads all of documents or all of document_values. */
function assertIndexed(plan: string): void {
  assert.doesNotMatch(plan, /\bSCAN documents\b/, plan);
  assert.doesNotMatch(plan, /\bSCAN document_values\b/, plan);
}

function makeArticles(count: number): Article[] {
  const random = seededRandom(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const words = (n: number): string => Array.from({ length: n }, () => pick(vocabulary)).join(' ');
  return Array.from({ length: count }, (_, n) => {
    const category = [...new Set([pick(categories), ...(random() < 0.3 ? [pick(categories)] : [])])];
    const priority = Math.floor(random() * 1000);
    const authorIds = [
      ...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => `author-${Math.floor(random() * authorCount)}`)),
    ];
    const tagged = random() < 0.7;
    const zebra = n % 37 === 0;
    const title = `${words(3)}${zebra ? ' zebra' : ''}`;
    const day = new Date(Date.UTC(2020, 0, 1) + n * 3_600_000).toISOString();
    const doc: StoredDocument = {
      _id: `article-${n}:en:draft`,
      cmsDocId: `article-${n}`,
      cmsLocale: 'en:draft',
      cmsMode: 'draft',
      type: 'article',
      slug: `article-${n}`,
      title,
      titleSortified: title,
      archived: n % 10 === 0,
      createdAt: day,
      updatedAt: day,
      category,
      priority,
      authorIds,
    };
    const values = [
      ...category.map((value) => ({ key: 'category', value })),
      { key: 'priority', value: priority },
      ...authorIds.map((value) => ({ key: 'authorIds', value })),
      ...(tagged ? [{ key: 'tags', value: pick(vocabulary) }] : []),
    ];
    // Short texts keep building the store quick; the plans do not depend on their length.
    const high = words(2);
    const low = words(6);
    const search = { title, high, low, publicTitle: title, publicHigh: '', publicLow: '' };
    return { doc, index: { locale: 'en', mode: 'draft', values, search }, category, priority, authorIds, tagged, zebra };
  });
}

function makeAuthor(n: number): StoredDocument {
  const at = new Date(Date.UTC(2021, 0, 1)).toISOString();
  return {
    _id: `author-${n}:en:draft`,
    cmsDocId: `author-${n}`,
    cmsLocale: 'en:draft',
    cmsMode: 'draft',
    type: 'author',
    slug: `author-${n}`,
    title: `Author ${n}`,
    titleSortified: `author ${n}`,
    archived: false,
    createdAt: at,
    updatedAt: at,
  };
}

/** A small deterministic generator (mulberry32), so every run builds the same store. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
