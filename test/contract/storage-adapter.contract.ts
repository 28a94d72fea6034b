import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DocumentQuery, StorageAdapter, StoredDocument, UserLogin } from '../../src/storage/storage-adapter.js';
import { assertConflict, docIdsOf, emptyIndex, idsOf, makeDoc, makeIndex, placeOf } from './contract-helpers.js';
import { describeIndexContract } from './document-index.contract.js';
import { describeAttachmentContract } from './attachment-store.contract.js';
import { describeLoginThrottleContract } from './login-throttle.contract.js';
import { describeExportContract } from './export-reads.contract.js';
import { describeApiKeyContract } from './api-key-store.contract.js';
import { describeAdvisoryLockContract } from './advisory-lock-store.contract.js';
import { describeLocaleChainContract, describeShareLinkContract } from './preview-and-fallback.contract.js';
import { describeChangeLogContract } from './change-log.contract.js';
import { describeWebhookOutboxContract } from './webhook-outbox.contract.js';
import { describeAuditContract } from './audit-store.contract.js';
import { describeReverseIdsContract } from './reverse-ids.contract.js';
import { describeScheduleStoreContract } from './schedule-store.contract.js';
import { describeIdempotencyKeyContract } from './idempotency-key-store.contract.js';

/** Creates a fresh, empty store; `cleanup` runs after the suite has closed the adapter. */
export type MakeAdapter = () => Promise<{ adapter: StorageAdapter; cleanup: () => Promise<void> }>;

/**
 * Every behaviour the services rely on, for any StorageAdapter. Each test gets a new, migrated
 * store. Uses nothing database-specific: values are lowercase ASCII so collations agree.
 */
export function runStorageContract(name: string, makeAdapter: MakeAdapter): void {
  describe(`storage contract: ${name}`, () => {
    let adapter: StorageAdapter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ adapter, cleanup } = await makeAdapter());
      await adapter.migrate();
    });

    afterEach(async () => {
      await adapter.close();
      await cleanup();
    });

    const insertAll = async (docs: StoredDocument[]): Promise<void> => {
      for (const doc of docs) await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
    };

    describe('lifecycle', () => {
      it('migrates idempotently', async () => {
        await adapter.migrate();
        await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
        await adapter.migrate();
        assert.equal(await adapter.documents.count({ type: null }), 1);
      });

      it('answers ping and closes more than once', async () => {
        assert.equal(await adapter.ping(), true);
        await adapter.close();
        await adapter.close();
      });
    });

    describe('documents: find and count', () => {
      it('returns a document exactly as inserted', async () => {
        const body = { items: [1, 'two', { three: true }] };
        const localized = makeDoc({ docId: 'a', body, visibility: 'public' });
        const nonLocalized = makeDoc({ docId: 'u', type: 'user', locale: null, mode: null });
        await insertAll([localized, nonLocalized]);
        assert.deepEqual(await adapter.documents.find({ type: 'article', ids: ['a:en:draft'] }), [localized]);
        assert.deepEqual(await adapter.documents.find({ type: 'user', ids: ['u'] }), [nonLocalized]);
      });

      const seed = (): StoredDocument[] => [
        makeDoc({ docId: 'a1' }),
        makeDoc({ docId: 'a1', mode: 'published' }),
        makeDoc({ docId: 'a1', locale: 'fr', slug: 'a1' }),
        makeDoc({ docId: 'a2', archived: true, visibility: 'loginrequired' }),
        makeDoc({ docId: 'a3', visibility: 'public' }),
        makeDoc({ docId: 'b1', type: 'author' }),
        makeDoc({ docId: 'u1', type: 'user', locale: null, mode: null }),
      ];

      const all = ['a1:en:draft', 'a1:en:published', 'a1:fr:draft', 'a2:en:draft', 'a3:en:draft', 'b1:en:draft'];
      const enDraft = { locale: 'en', mode: 'draft' } as const;
      const cases: { filter: string; query: DocumentQuery; ids: string[] }[] = [
        { filter: 'none', query: { type: null }, ids: [...all, 'u1'] },
        { filter: 'type', query: { type: 'author' }, ids: ['b1:en:draft'] },
        { filter: 'locale', query: { type: null, locale: 'fr' }, ids: ['a1:fr:draft'] },
        { filter: 'mode', query: { type: null, mode: 'published' }, ids: ['a1:en:published'] },
        { filter: 'locale and mode null', query: { type: null, locale: null, mode: null }, ids: ['u1'] },
        { filter: 'ids of the type', query: { type: 'article', ids: ['a2:en:draft', 'u1', 'b1:en:draft', 'missing'] }, ids: ['a2:en:draft'] },
        { filter: 'empty ids', query: { type: 'article', ids: [] }, ids: [] },
        {
          filter: 'docIds of the type',
          query: { type: 'author', docIds: ['a1', 'b1'] },
          ids: ['b1:en:draft'],
        },
        { filter: 'slug', query: { type: null, slug: 'a1' }, ids: ['a1:en:draft', 'a1:en:published', 'a1:fr:draft'] },
        { filter: 'archived true', query: { type: null, archived: true }, ids: ['a2:en:draft'] },
        {
          filter: 'archived false',
          query: { ...enDraft, type: 'article', archived: false },
          ids: ['a1:en:draft', 'a3:en:draft'],
        },
        {
          filter: 'visibility, missing counts as public',
          query: { type: 'article', visibility: ['public'] },
          ids: ['a1:en:draft', 'a1:en:published', 'a1:fr:draft', 'a3:en:draft'],
        },
        {
          filter: 'several visibilities',
          query: { ...enDraft, type: null, visibility: ['public', 'loginrequired'] },
          ids: ['a1:en:draft', 'a2:en:draft', 'a3:en:draft', 'b1:en:draft'],
        },
        {
          filter: 'combined',
          query: { ...enDraft, type: 'article', docIds: ['a1', 'a2'], archived: false },
          ids: ['a1:en:draft'],
        },
      ];

      for (const { filter, query, ids } of cases) {
        it(`filters by ${filter}`, async () => {
          await insertAll(seed());
          assert.deepEqual(idsOf(await adapter.documents.find(query)).sort(), ids);
          assert.equal(await adapter.documents.count(query), ids.length);
        });
      }

      it('matches long id lists', async () => {
        await insertAll(seed());
        const ids = [...Array.from({ length: 1500 }, (_, index) => `missing-${index}`), 'a3:en:draft'];
        assert.deepEqual(idsOf(await adapter.documents.find({ type: 'article', ids })), ['a3:en:draft']);
      });

      it('counts without regard to skip and limit', async () => {
        await insertAll(seed());
        assert.equal(await adapter.documents.count({ type: 'article', skip: 1, limit: 1 }), 5);
      });
    });

    describe('documents: sort and paging', () => {
      const sortable = (): StoredDocument[] => [
        makeDoc({ docId: 'c', title: 'a', titleSortified: 'z', priority: 2, ...times('2024-01-03', '2024-02-01') }),
        makeDoc({ docId: 'a', title: 'b', titleSortified: 'y', priority: 10, ...times('2024-01-01', '2024-02-03') }),
        makeDoc({ docId: 'b', title: 'c', titleSortified: 'x', priority: 1, ...times('2024-01-02', '2024-02-02') }),
      ];
      const times = (createdAt: string, updatedAt: string) => ({ createdAt, updatedAt });
      // `priority` is not an indexed field; 10 after 2 shows that numbers sort as numbers.
      const sortCases: { field: string; ascending: string[] }[] = [
        { field: 'updatedAt', ascending: ['c', 'b', 'a'] },
        { field: 'createdAt', ascending: ['a', 'b', 'c'] },
        { field: 'titleSortified', ascending: ['b', 'a', 'c'] },
        { field: 'title', ascending: ['c', 'a', 'b'] },
        { field: 'slug', ascending: ['a', 'b', 'c'] },
        { field: '_id', ascending: ['a', 'b', 'c'] },
        { field: 'priority', ascending: ['b', 'c', 'a'] },
      ];

      for (const { field, ascending } of sortCases) {
        it(`sorts by ${field} in both directions`, async () => {
          await insertAll(sortable());
          const up = await adapter.documents.find({ type: null, sort: [{ field, direction: 1 }] });
          const down = await adapter.documents.find({ type: null, sort: [{ field, direction: -1 }] });
          assert.deepEqual(docIdsOf(up), ascending);
          assert.deepEqual(docIdsOf(down), [...ascending].reverse());
        });
      }

      it('sorts by several fields', async () => {
        await insertAll([
          makeDoc({ docId: 'a', priority: 1, updatedAt: '2024-01-01' }),
          makeDoc({ docId: 'b', priority: 2, updatedAt: '2024-01-02' }),
          makeDoc({ docId: 'c', priority: 1, updatedAt: '2024-01-03' }),
        ]);
        const docs = await adapter.documents.find({type: null, 
          sort: [{ field: 'priority', direction: 1 }, { field: 'updatedAt', direction: -1 }],
        });
        assert.deepEqual(docIdsOf(docs), ['c', 'a', 'b']);
      });

      it('breaks ties by _id in the direction of the last sort key, so a list index serves both', async () => {
        const updatedAt = '2024-05-05T00:00:00.000Z';
        await insertAll(['d', 'b', 'c', 'a'].map((docId) => makeDoc({ docId, updatedAt, priority: 1 })));
        const byUpdated = (direction: 1 | -1) => adapter.documents.find({ type: null, sort: [{ field: 'updatedAt', direction }] }).then(docIdsOf);
        assert.deepEqual(await byUpdated(1), ['a', 'b', 'c', 'd']);
        assert.deepEqual(await byUpdated(-1), ['d', 'c', 'b', 'a']);
        const mixed = await adapter.documents.find({type: null, 
          sort: [{ field: 'updatedAt', direction: -1 }, { field: 'priority', direction: 1 }],
        });
        assert.deepEqual(docIdsOf(mixed), ['a', 'b', 'c', 'd']);
        assert.deepEqual(docIdsOf(await adapter.documents.find({ type: null })), ['a', 'b', 'c', 'd']);
      });

      it('pages with skip and limit without gaps or repeats', async () => {
        const updatedAt = '2024-05-05T00:00:00.000Z';
        await insertAll(['e', 'b', 'd', 'a', 'c'].map((docId) => makeDoc({ docId, updatedAt })));
        const page = (skip: number | undefined, limit: number | undefined) =>
          adapter.documents.find({ type: null, sort: [{ field: 'updatedAt', direction: -1 }], skip, limit }).then(docIdsOf);
        assert.deepEqual(await page(undefined, 2), ['e', 'd']);
        assert.deepEqual(await page(2, 2), ['c', 'b']);
        assert.deepEqual(await page(4, 2), ['a']);
        assert.deepEqual(await page(3, undefined), ['b', 'a']);
        assert.deepEqual(await page(9, 2), []);
        assert.deepEqual(await page(0, 0), []);
      });
    });

    describe('documents: keyset bound', () => {
      // Ties, missing values, numbers, booleans and texts in one property, so that every term of
      // both adapters' orders is crossed by a bound.
      const keyed = (): StoredDocument[] =>
        ['e', 'b', 'g', 'a', 'f', 'c', 'd', 'h'].map((docId, n) =>
          makeDoc({
            docId,
            title: n % 3 === 0 ? 'same' : `t${n}`,
            titleSortified: n % 2 === 0 ? 'tie' : `s${n}`,
            updatedAt: `2024-05-0${n % 3}`,
            ...(n % 4 === 1 ? {} : { mixed: [null, 3, 'x', true, -1.5, 'a'][n % 6] }),
          }),
        );
      const sortOf = (field: string, direction: 1 | -1) => [{ field, direction }] as const;
      const sorts = [
        ...['updatedAt', 'titleSortified', 'title', '_id', 'mixed'].flatMap((field) => [sortOf(field, 1), sortOf(field, -1)]),
        [{ field: 'mixed', direction: 1 }, { field: 'updatedAt', direction: -1 }] as const,
        [{ field: 'updatedAt', direction: -1 }, { field: 'title', direction: 1 }] as const,
      ];
      const valueOf = (doc: StoredDocument, field: string) => {
        const value = (doc as Record<string, unknown>)[field];
        return value === undefined ? null : (value as string | number | boolean | null);
      };

      for (const sort of sorts) {
        it(`walks ${sort.map(({ field, direction }) => `${field} ${direction}`).join(', ')} one document at a time`, async () => {
          await insertAll(keyed());
          const query: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', sort };
          const whole = docIdsOf(await adapter.documents.find(query));
          const walked: string[] = [];
          let last: StoredDocument | undefined;
          for (let step = 0; step <= whole.length; step++) {
            const after = last && { values: sort.filter(({ field }) => field !== '_id').map(({ field }) => valueOf(last!, field)), id: last._id };
            [last] = await adapter.documents.find({ ...query, after, limit: 1 });
            if (last === undefined) break;
            walked.push(last.cmsDocId);
          }
          assert.deepEqual(walked, whole);
        });
      }

      it('starts after the bound even when its document is gone', async () => {
        await insertAll(keyed());
        const query: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', sort: sortOf('updatedAt', -1) };
        const whole = await adapter.documents.find(query);
        const bound = whole[2]!;
        await adapter.documents.remove('article', [bound._id]);
        const rest = await adapter.documents.find({ ...query, after: { values: [bound.updatedAt as string], id: bound._id } });
        assert.deepEqual(docIdsOf(rest), docIdsOf(whole.slice(3)));
      });
    });

    describe('documents: writes', () => {
      it('updates a stored version and its filtered columns', async () => {
        const doc = makeDoc({ docId: 'a' });
        await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
        const changed = { ...doc, slug: 'renamed', archived: true, title: 'new title', extra: [1, 2] };
        assert.equal(await adapter.documents.update(changed, emptyIndex(placeOf(changed))), true);
        assert.deepEqual(await adapter.documents.find({ type: null, slug: 'renamed', archived: true }), [changed]);
        assert.equal(await adapter.documents.count({ type: null, slug: 'a' }), 0);
      });

      it('updates nothing and returns false for an unknown _id', async () => {
        assert.equal(await adapter.documents.update(makeDoc({ docId: 'ghost' }), emptyIndex()), false);
        assert.equal(await adapter.documents.count({ type: null }), 0);
      });

      it('rejects an update onto a slug taken in the same locale and mode', async () => {
        await insertAll([makeDoc({ docId: 'a' }), makeDoc({ docId: 'b' })]);
        await assertConflict(adapter.documents.update(makeDoc({ docId: 'b', slug: 'a' }), emptyIndex()), 'slug');
        assert.equal((await adapter.documents.find({ type: 'article', ids: ['b:en:draft'] }))[0]?.slug, 'b');
      });

      it('removes by _id and counts only what existed', async () => {
        await insertAll(['a', 'b', 'c'].map((docId) => makeDoc({ docId })));
        assert.equal(await adapter.documents.remove('article', ['a:en:draft', 'c:en:draft', 'missing']), 2);
        assert.equal(await adapter.documents.remove('article', []), 0);
        assert.deepEqual(idsOf(await adapter.documents.find({ type: null })), ['b:en:draft']);
      });

      describe('a lookup by id of another type reaches nothing (issue 20)', () => {
        const note = () => makeDoc({ docId: 'n', type: 'note', title: 'kept', slug: 'kept' });
        const user = () => makeDoc({ docId: 'u', type: 'user', locale: null, mode: null, role: 'editor' });
        const seedOthers = async () => {
          await insertAll([note(), user()]);
          await adapter.documents.insert(makeDoc({ docId: 'a' }), makeIndex({ category: ['news'] }, { title: 'zebra' }));
        };
        const storedAsSeeded = async () => {
          assert.deepEqual(await adapter.documents.find({ type: 'note', ids: ['n:en:draft'] }), [note()]);
          assert.deepEqual(await adapter.documents.find({ type: 'user', ids: ['u'] }), [user()]);
        };

        it('finds and counts nothing by ids or docIds', async () => {
          await seedOthers();
          assert.deepEqual(await adapter.documents.find({ type: 'article', ids: ['n:en:draft', 'u'] }), []);
          assert.deepEqual(await adapter.documents.find({ type: 'article', docIds: ['n', 'u'] }), []);
          assert.equal(await adapter.documents.count({ type: 'article', ids: ['n:en:draft', 'u'] }), 0);
          assert.equal(await adapter.documents.count({ type: 'article', docIds: ['n', 'u'] }), 0);
          assert.deepEqual(await adapter.documents.distinctValues({ type: 'note', ids: ['a:en:draft'] }, 'category'), []);
        });

        it('updates nothing, with or without an index', async () => {
          await seedOthers();
          const asArticle = (doc: StoredDocument) => ({ ...doc, type: 'article', title: 'pwned', role: 'admin' });
          assert.equal(await adapter.documents.update(asArticle(note()), emptyIndex()), false);
          assert.equal(await adapter.documents.update(asArticle(note())), false);
          assert.equal(await adapter.documents.update(asArticle(user()), emptyIndex()), false);
          assert.equal(await adapter.documents.update(asArticle(user())), false);
          await storedAsSeeded();
        });

        it('removes nothing, and only the versions of the type named', async () => {
          await seedOthers();
          assert.equal(await adapter.documents.remove('article', ['n:en:draft', 'u']), 0);
          await storedAsSeeded();
          assert.equal(await adapter.documents.remove('note', ['n:en:draft', 'u', 'a:en:draft']), 1);
          assert.deepEqual(idsOf(await adapter.documents.find({ type: null, sort: [{ field: '_id', direction: 1 }] })), ['a:en:draft', 'u']);
          assert.deepEqual(await adapter.documents.distinctValues({ type: 'article' }, 'category'), [{ value: 'news', count: 1 }]);
        });

        it('refuses a lookup by id that names no type', async () => {
          await seedOthers();
          const untyped = { type: null, ids: ['u'] } as unknown as DocumentQuery;
          await assert.rejects(adapter.documents.find(untyped), /names its type/);
          await assert.rejects(adapter.documents.count({ ...untyped, docIds: ['u'], ids: undefined } as unknown as DocumentQuery), /names its type/);
        });
      });

      it('rejects a duplicate _id', async () => {
        await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
        await assertConflict(adapter.documents.insert(makeDoc({ docId: 'a', slug: 'other' }), emptyIndex()), 'id');
      });

      it('rejects a duplicate slug in the same locale and mode, across types', async () => {
        await adapter.documents.insert(makeDoc({ docId: 'a', slug: 'shared' }), emptyIndex());
        const duplicate = makeDoc({ docId: 'b', type: 'author', slug: 'shared' });
        await assertConflict(adapter.documents.insert(duplicate, emptyIndex(placeOf(duplicate))), 'slug');
      });

      it('rejects a duplicate slug among non-localized documents', async () => {
        const user = (docId: string) => makeDoc({ docId, type: 'user', locale: null, mode: null, slug: 'same' });
        await adapter.documents.insert(user('u1'), emptyIndex(placeOf(user('u1'))));
        const duplicate = user('u2');
        await assertConflict(adapter.documents.insert(duplicate, emptyIndex(placeOf(duplicate))), 'slug');
      });

      it('allows the same slug in another mode, another locale, or non-localized', async () => {
        await insertAll([
          makeDoc({ docId: 'a', slug: 'same' }),
          makeDoc({ docId: 'b', slug: 'same', mode: 'published' }),
          makeDoc({ docId: 'c', slug: 'same', locale: 'fr' }),
          makeDoc({ docId: 'd', slug: 'same', type: 'user', locale: null, mode: null }),
        ]);
        assert.equal(await adapter.documents.count({ type: null, slug: 'same' }), 4);
      });
    });

    describe('documents: slugsLike', () => {
      const slugsLike = async (base: string, exceptDocId?: string) => {
        const slugs = await adapter.documents.slugsLike({ locale: 'en', mode: 'draft', base, exceptDocId });
        return slugs.sort();
      };

      it('finds the base and its dash suffixes in one locale and mode only', async () => {
        await insertAll([
          makeDoc({ docId: 'a', slug: 'news' }),
          makeDoc({ docId: 'b', slug: 'news-1' }),
          makeDoc({ docId: 'c', slug: 'news-flash-2' }),
          makeDoc({ docId: 'd', slug: 'newsroom' }),
          makeDoc({ docId: 'e', slug: 'the-news' }),
          makeDoc({ docId: 'f', slug: 'news-9', locale: 'fr' }),
          makeDoc({ docId: 'g', slug: 'news-8', mode: 'published' }),
        ]);
        assert.deepEqual(await slugsLike('news'), ['news', 'news-1', 'news-flash-2']);
        assert.deepEqual(await slugsLike('nothing'), []);
      });

      it('treats % and _ in the base literally', async () => {
        await insertAll([
          makeDoc({ docId: 'a', slug: '50%-off' }),
          makeDoc({ docId: 'b', slug: '50x-off' }),
          makeDoc({ docId: 'c', slug: '50abc-off' }),
          makeDoc({ docId: 'd', slug: 'a_b-1' }),
          makeDoc({ docId: 'e', slug: 'axb-1' }),
          makeDoc({ docId: 'f', slug: 'a\\b-1' }),
          makeDoc({ docId: 'g', slug: 'a\\\\b-1' }),
        ]);
        assert.deepEqual(await slugsLike('50%'), ['50%-off']);
        assert.deepEqual(await slugsLike('a_b'), ['a_b-1']);
        assert.deepEqual(await slugsLike('a\\b'), ['a\\b-1']);
      });

      it('compares case-sensitively', async () => {
        await insertAll([makeDoc({ docId: 'a', slug: 'News-1' }), makeDoc({ docId: 'b', slug: 'news-2' })]);
        assert.deepEqual(await slugsLike('news'), ['news-2']);
      });

      it('ignores every version of exceptDocId', async () => {
        await insertAll([makeDoc({ docId: 'a', slug: 'news' }), makeDoc({ docId: 'b', slug: 'news-1' })]);
        assert.deepEqual(await slugsLike('news', 'a'), ['news-1']);
      });

      it('looks among non-localized documents for null locale and mode', async () => {
        await insertAll([
          makeDoc({ docId: 'u1', type: 'user', locale: null, mode: null, slug: 'user-jo' }),
          makeDoc({ docId: 'a', slug: 'user-jo-1' }),
        ]);
        const slugs = await adapter.documents.slugsLike({ locale: null, mode: null, base: 'user-jo' });
        assert.deepEqual(slugs, ['user-jo']);
      });
    });

    describe('transactions', () => {
      it('commits all writes together and returns the result of work', async () => {
        const result = await adapter.transaction(async (tx) => {
          await tx.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
          await tx.documents.insert(makeDoc({ docId: 'a', mode: 'published' }), emptyIndex({ locale: 'en', mode: 'published' }));
          await tx.logins.put(makeLogin('u1'));
          return 'done';
        });
        assert.equal(result, 'done');
        assert.equal(await adapter.documents.count({ type: 'article', docIds: ['a'] }), 2);
        assert.deepEqual(await adapter.logins.get('u1'), makeLogin('u1'));
      });

      it('rolls back every write when work throws, and rethrows', async () => {
        const failure = new Error('work failed');
        await assert.rejects(
          adapter.transaction(async (tx) => {
            await tx.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
            await tx.logins.put(makeLogin('u1'));
            await tx.tokens.put(makeToken('t1', 'u1'));
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.equal(await adapter.documents.count({ type: null }), 0);
        assert.equal(await adapter.logins.get('u1'), null);
        assert.equal(await adapter.tokens.get('t1'), null);
      });

      it('rolls back earlier writes when a later one conflicts', async () => {
        await adapter.documents.insert(makeDoc({ docId: 'a', slug: 'taken' }), emptyIndex());
        const work = adapter.transaction(async (tx) => {
          await tx.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
          await tx.documents.insert(makeDoc({ docId: 'c', slug: 'taken' }), emptyIndex());
        });
        await assertConflict(work, 'slug');
        assert.deepEqual(idsOf(await adapter.documents.find({ type: null })), ['a:en:draft']);
      });

      it('shows its own writes to the transaction and hides them from reads outside it', async () => {
        const doc = makeDoc({ docId: 'a' });
        await adapter.transaction(async (tx) => {
          await tx.documents.insert(doc, emptyIndex(placeOf(doc)));
          await tx.logins.put(makeLogin('u1'));
          await tx.tokens.put(makeToken('t1', 'u1'));
          assert.deepEqual(await tx.documents.find({ type: 'article', ids: [doc._id] }), [doc]);
          assert.equal(await tx.documents.count({ type: null }), 1);
          assert.deepEqual(await adapter.documents.find({ type: 'article', ids: [doc._id] }), []);
          assert.equal(await adapter.documents.count({ type: null }), 0);
          assert.equal(await adapter.logins.get('u1'), null);
          assert.equal(await adapter.tokens.get('t1'), null);
        });
        assert.deepEqual(await adapter.documents.find({ type: 'article', ids: [doc._id] }), [doc]);
      });

      it('finds its own texts by search inside the transaction, and nothing of them after a rollback', async () => {
        const search = { words: ['quokka'], match: 'any', prefix: false, phrases: [], without: [], texts: 'all' } as const;
        await assert.rejects(
          adapter.transaction(async (tx) => {
            await tx.documents.insert(makeDoc({ docId: 'a' }), makeIndex({}, { title: 'quokka' }));
            await tx.documents.insert(makeDoc({ docId: 'b' }), makeIndex({}, { title: 'quokka' }));
            assert.equal(await tx.documents.count({ type: null, search }), 2);
            await tx.documents.update(makeDoc({ docId: 'b' }), makeIndex({}, { title: 'wombat' }));
            assert.deepEqual(idsOf(await tx.documents.find({ type: null, search })), ['a:en:draft']);
            throw new Error('undo');
          }),
          /undo/,
        );
        assert.equal(await adapter.documents.count({ type: null, search }), 0);
        await adapter.transaction((tx) => tx.documents.insert(makeDoc({ docId: 'c' }), makeIndex({}, { title: 'quokka' })));
        assert.deepEqual(idsOf(await adapter.documents.find({ type: null, search })), ['c:en:draft']);
      });

      it('keeps working after a failed transaction', async () => {
        await assert.rejects(adapter.transaction(async () => Promise.reject(new Error('no'))));
        await adapter.transaction((tx) => tx.documents.insert(makeDoc({ docId: 'a' }), emptyIndex()));
        assert.equal(await adapter.documents.count({ type: null }), 1);
      });

      it('commits concurrent transactions and top-level writes', async () => {
        await Promise.all([
          ...['a', 'b', 'c', 'd'].map((docId) => adapter.documents.insert(makeDoc({ docId }), emptyIndex())),
          ...['e', 'f', 'g'].map((docId) =>
            adapter.transaction(async (tx) => {
              await tx.documents.insert(makeDoc({ docId }), emptyIndex());
              await tx.documents.insert(makeDoc({ docId, mode: 'published' }), emptyIndex({ locale: 'en', mode: 'published' }));
            }),
          ),
        ]);
        assert.equal(await adapter.documents.count({ type: null }), 10);
      });
    });

    describeIndexContract(() => adapter);
    describeAttachmentContract(() => adapter);
    describeLoginThrottleContract(() => adapter);
    describeExportContract(() => adapter);
    describeApiKeyContract(() => adapter);
    describeAdvisoryLockContract(() => adapter);
    describeShareLinkContract(() => adapter);
    describeLocaleChainContract(() => adapter);
    describeChangeLogContract(() => adapter);
    describeWebhookOutboxContract(() => adapter);
    describeAuditContract(() => adapter);
    describeReverseIdsContract(() => adapter);
    describeScheduleStoreContract(() => adapter);
    describeIdempotencyKeyContract(() => adapter);

    describe('logins', () => {
      it('stores and reads a login by user id', async () => {
        await adapter.logins.put(makeLogin('u1'));
        assert.deepEqual(await adapter.logins.get('u1'), makeLogin('u1'));
        assert.equal(await adapter.logins.get('u2'), null);
      });

      it('finds a login by username or by email', async () => {
        await adapter.logins.put(makeLogin('u1'));
        assert.equal((await adapter.logins.findByName('u1-name'))?.userId, 'u1');
        assert.equal((await adapter.logins.findByName('u1@example.com'))?.userId, 'u1');
        assert.equal(await adapter.logins.findByName('nobody'), null);
      });

      it('replaces the login of the same user', async () => {
        await adapter.logins.put(makeLogin('u1'));
        const changed = { ...makeLogin('u1'), username: 'renamed', email: null, passwordHash: 'new-hash' };
        await adapter.logins.put(changed);
        assert.deepEqual(await adapter.logins.get('u1'), changed);
        assert.equal(await adapter.logins.findByName('u1-name'), null);
      });

      it("rejects another user's username or email", async () => {
        await adapter.logins.put(makeLogin('u1'));
        await assertConflict(adapter.logins.put({ ...makeLogin('u2'), username: 'u1-name' }), 'username');
        await assertConflict(adapter.logins.put({ ...makeLogin('u2'), email: 'u1@example.com' }), 'email');
        assert.equal(await adapter.logins.get('u2'), null);
      });

      it('allows several users without an email', async () => {
        await adapter.logins.put({ ...makeLogin('u1'), email: null });
        await adapter.logins.put({ ...makeLogin('u2'), email: null });
        assert.equal((await adapter.logins.get('u2'))?.email, null);
      });

      it('removes a login', async () => {
        await adapter.logins.put(makeLogin('u1'));
        await adapter.logins.remove('u1');
        await adapter.logins.remove('u1');
        assert.equal(await adapter.logins.get('u1'), null);
      });

      it('keeps setup code digests until each is taken, once', async () => {
        assert.equal(await adapter.setupCodes.any(), false);
        assert.equal(await adapter.setupCodes.take('a'.repeat(64)), false);
        await adapter.setupCodes.add('a'.repeat(64));
        await adapter.setupCodes.add('a'.repeat(64));
        await adapter.setupCodes.add('b'.repeat(64));
        assert.equal(await adapter.setupCodes.any(), true);
        const taken = await Promise.all([0, 1, 2].map(() => adapter.setupCodes.take('a'.repeat(64))));
        assert.deepEqual(taken.sort(), [false, false, true], 'each code is taken once');
        assert.equal(await adapter.setupCodes.any(), true);
        assert.equal(await adapter.transaction((tx) => tx.setupCodes.take('b'.repeat(64))), true);
        assert.equal(await adapter.setupCodes.any(), false);
      });
    });

    describe('tokens', () => {
      it('stores, reads and removes a token', async () => {
        await adapter.tokens.put(makeToken('t1', 'u1'));
        assert.deepEqual(await adapter.tokens.get('t1'), makeToken('t1', 'u1'));
        assert.equal(await adapter.tokens.get('t2'), null);
        await adapter.tokens.remove('t1');
        assert.equal(await adapter.tokens.get('t1'), null);
      });

      it("removes all of one user's tokens and no others", async () => {
        await adapter.tokens.put(makeToken('t1', 'u1'));
        await adapter.tokens.put(makeToken('t2', 'u1'));
        await adapter.tokens.put(makeToken('t3', 'u2'));
        await adapter.tokens.removeForUser('u1');
        assert.equal(await adapter.tokens.get('t1'), null);
        assert.equal(await adapter.tokens.get('t2'), null);
        assert.deepEqual(await adapter.tokens.get('t3'), makeToken('t3', 'u2'));
      });
    });
  });
}

function makeLogin(userId: string): UserLogin {
  return { userId, username: `${userId}-name`, email: `${userId}@example.com`, passwordHash: `${userId}-hash` };
}

function makeToken(token: string, userId: string) {
  return { token, userId, expiresAt: '2030-01-01T00:00:00.000Z' };
}
