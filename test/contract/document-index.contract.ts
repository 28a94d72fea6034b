import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  DocumentIndex,
  DocumentQuery,
  FilterCondition,
  StorageAdapter,
  StoredDocument,
  TextSearch,
} from '../../src/storage/storage-adapter.js';
import { docIdsOf, emptyIndex, idsOf, makeDoc, makeIndex, placeOf } from './contract-helpers.js';

/**
 * What the store does with a document's index (filter values and search texts): conditions,
 * full-text search, relevance and id order, distinct values, and keeping the index in step with
 * writes. `store` returns the suite's current, migrated adapter.
 */
export function describeIndexContract(store: () => StorageAdapter): void {
  const insertIndexed = async (entries: readonly [StoredDocument, DocumentIndex][]): Promise<void> => {
    for (const [doc, index] of entries) await store().documents.insert(doc, index);
  };
  const findDocIds = async (query: DocumentQuery): Promise<string[]> => {
    const found = docIdsOf(await store().documents.find(query));
    assert.equal(await store().documents.count(query), found.length, 'count agrees with find');
    return found;
  };

  describe('documents: filter conditions', () => {
    // `priority` holds the number 10 in b and the text '10' in c: they are different values.
    const seed = (): [StoredDocument, DocumentIndex][] => [
      [makeDoc({ docId: 'a' }), makeIndex({ category: ['news', 'sports'], priority: [5], label: ['Hello World'] })],
      [makeDoc({ docId: 'b' }), makeIndex({ category: ['news'], priority: [10], label: ['100% pure'] })],
      [makeDoc({ docId: 'c' }), makeIndex({ category: ['sports'], priority: ['10'], label: ['100x pure', 'a_b'] })],
      [makeDoc({ docId: 'd' }), emptyIndex()],
      [makeDoc({ docId: 'e' }), makeIndex({ category: ['arts'], priority: [1], label: ['axb'] })],
    ];
    const when = (condition: FilterCondition, docIds: string[]) => ({ conditions: [condition], docIds });
    const cases: { name: string; conditions: FilterCondition[]; docIds: string[] }[] = [
      { name: 'in, one of several values', ...when({ key: 'category', op: 'in', values: ['sports'] }, ['a', 'c']) },
      { name: 'in, several', ...when({ key: 'category', op: 'in', values: ['news', 'arts'] }, ['a', 'b', 'e']) },
      { name: 'in, nothing', ...when({ key: 'category', op: 'in', values: [] }, []) },
      { name: 'in, a number', ...when({ key: 'priority', op: 'in', values: [10] }, ['b']) },
      { name: 'in, a text that reads as a number', ...when({ key: 'priority', op: 'in', values: ['10'] }, ['c']) },
      { name: 'all', ...when({ key: 'category', op: 'all', values: ['news', 'sports'] }, ['a']) },
      { name: 'all, one missing', ...when({ key: 'category', op: 'all', values: ['news', 'arts'] }, []) },
      { name: 'all, repeated', ...when({ key: 'category', op: 'all', values: ['news', 'news'] }, ['a', 'b']) },
      { name: 'all of nothing', ...when({ key: 'category', op: 'all', values: [] }, ['a', 'b', 'c', 'd', 'e']) },
      { name: 'range of numbers', ...when({ key: 'priority', op: 'range', min: 2, max: 9 }, ['a']) },
      { name: 'range, inclusive', ...when({ key: 'priority', op: 'range', min: 5, max: 10 }, ['a', 'b']) },
      { name: 'range, open above', ...when({ key: 'priority', op: 'range', min: 5 }, ['a', 'b']) },
      { name: 'range, open below', ...when({ key: 'priority', op: 'range', max: 5 }, ['a', 'e']) },
      { name: 'range of text', ...when({ key: 'category', op: 'range', min: 'news', max: 'sports' }, ['a', 'b', 'c']) },
      { name: 'range of text, open below', ...when({ key: 'category', op: 'range', max: 'b' }, ['e']) },
      { name: 'range of text, open above', ...when({ key: 'priority', op: 'range', min: '0' }, ['c']) },
      { name: 'range, unbounded', ...when({ key: 'priority', op: 'range' }, ['a', 'b', 'c', 'e']) },
      { name: 'contains, any case', ...when({ key: 'label', op: 'contains', text: 'WORLD' }, ['a']) },
      { name: 'contains, % literally', ...when({ key: 'label', op: 'contains', text: '0%' }, ['b']) },
      { name: 'contains, _ literally', ...when({ key: 'label', op: 'contains', text: '_' }, ['c']) },
      { name: 'contains, text values only', ...when({ key: 'priority', op: 'contains', text: '1' }, ['c']) },
      { name: 'none', ...when({ key: 'category', op: 'none' }, ['d']) },
      {
        name: 'several conditions, all holding',
        conditions: [
          { key: 'category', op: 'in', values: ['news', 'sports'] },
          { key: 'priority', op: 'range', min: 6 },
        ],
        docIds: ['b'],
      },
    ];

    for (const { name, conditions, docIds } of cases) {
      it(`filters by ${name}`, async () => {
        await insertIndexed(seed());
        assert.deepEqual(await findDocIds({ type: 'article', conditions, sort: [{ field: '_id', direction: 1 }] }), docIds);
      });
    }

    it('combines conditions with the other filters', async () => {
      await insertIndexed([
        ...seed(),
        [makeDoc({ docId: 'f', archived: true }), makeIndex({ category: ['news'] })],
        [makeDoc({ docId: 'g', type: 'author' }), makeIndex({ category: ['news'] })],
      ]);
      const conditions: FilterCondition[] = [{ key: 'category', op: 'in', values: ['news'] }];
      assert.deepEqual(await findDocIds({ type: 'article', archived: false, conditions }), ['a', 'b']);
    });
  });

  describe('documents: distinct values', () => {
    const seed = (): [StoredDocument, DocumentIndex][] => [
      [makeDoc({ docId: 'a' }), makeIndex({ category: ['news', 'sports'], color: ['red'] })],
      [makeDoc({ docId: 'b' }), makeIndex({ category: ['news'], color: ['blue'] })],
      [makeDoc({ docId: 'c' }), makeIndex({ category: ['sports', 'arts'], color: ['red'] })],
      [makeDoc({ docId: 'd', archived: true }), makeIndex({ category: ['news', 'zoo'] })],
      [makeDoc({ docId: 'e', type: 'author' }), makeIndex({ category: ['news'] })],
    ];

    it('counts the documents holding each value, ordered by value', async () => {
      await insertIndexed(seed());
      assert.deepEqual(await store().documents.distinctValues({ type: 'article', archived: false }, 'category'), [
        { value: 'arts', count: 1 },
        { value: 'news', count: 2 },
        { value: 'sports', count: 2 },
      ]);
    });

    it('counts among the documents the query matches, ignoring sort and paging', async () => {
      await insertIndexed(seed());
      const query: DocumentQuery = {
        type: 'article',
        conditions: [{ key: 'color', op: 'in', values: ['red'] }],
        sort: [{ field: 'updatedAt', direction: -1 }],
        skip: 1,
        limit: 1,
      };
      assert.deepEqual(await store().documents.distinctValues(query, 'category'), [
        { value: 'arts', count: 1 },
        { value: 'news', count: 1 },
        { value: 'sports', count: 2 },
      ]);
    });

    it('orders numbers by their value', async () => {
      await insertIndexed([
        [makeDoc({ docId: 'a' }), makeIndex({ priority: [10, 2] })],
        [makeDoc({ docId: 'b' }), makeIndex({ priority: [2] })],
      ]);
      assert.deepEqual(await store().documents.distinctValues({ type: null }, 'priority'), [
        { value: 2, count: 2 },
        { value: 10, count: 1 },
      ]);
    });

    it('is empty for a key no document holds', async () => {
      await insertIndexed(seed());
      assert.deepEqual(await store().documents.distinctValues({ type: null }, 'missing'), []);
    });

    it('answers the same values without their counts (heldValues), whole lists walked or not', async () => {
      await insertIndexed([
        ...seed(),
        [makeDoc({ docId: 'f' }), makeIndex({ category: [3, -1.5, 'x'.repeat(1200), ''], priority: [2] })],
        [makeDoc({ docId: 'g', visibility: 'loginRequired' }), makeIndex({ category: ['hidden', 3] })],
        [makeDoc({ docId: 'h', archived: true }), makeIndex({ category: ['zoo'] })],
      ]);
      const whole: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
      const queries: DocumentQuery[] = [
        whole,
        { ...whole, archived: true },
        { ...whole, archived: undefined },
        { ...whole, visibility: ['public'] },
        { ...whole, conditions: [{ key: 'color', op: 'in', values: ['red'] }] },
        { type: null },
      ];
      for (const query of queries) {
        for (const key of ['category', 'priority', 'missing']) {
          const counted = (await store().documents.distinctValues(query, key)).map(({ value }) => value);
          const about = JSON.stringify({ query, key });
          assert.deepEqual(await store().documents.heldValues(query, key), counted, about);
          // In a transaction nothing is counted first: a whole list is always walked there.
          assert.deepEqual(await store().transaction((tx) => tx.documents.heldValues(query, key)), counted, about);
        }
        // Several keys at once (a list's choices): each key's values, in the order asked.
        const keys = ['priority', 'missing', 'category'];
        const each = await Promise.all(keys.map(async (key) => (await store().documents.distinctValues(query, key)).map(({ value }) => value)));
        assert.deepEqual(await store().documents.heldValuesOfKeys(query, keys), each, JSON.stringify({ query, keys }));
        assert.deepEqual(await store().transaction((tx) => tx.documents.heldValuesOfKeys(query, keys)), each, JSON.stringify({ query, keys }));
      }
    });
  });

  describe('documents: search', () => {
    const seed = (): [StoredDocument, DocumentIndex][] => [
      [
        makeDoc({ docId: 'shoes' }),
        makeIndex({}, { title: 'Running shoes', high: 'trail', low: 'Lightweight shoes for the mountain' }),
      ],
      [
        makeDoc({ docId: 'pasta' }),
        makeIndex({}, { title: 'Cooking pasta', low: 'She runs a small kitchen, cooks every night' }),
      ],
      [makeDoc({ docId: 'guide' }), makeIndex({}, { title: 'Mountain guide', high: 'hiking', low: 'Trail maps' })],
      [
        makeDoc({ docId: 'secret' }),
        makeIndex({}, { title: 'Launch', low: 'classified budget', publicTitle: 'Launch', publicLow: 'press kit' }),
      ],
    ];
    const search = (words: string[], options: Partial<TextSearch> = {}): DocumentQuery => ({
      type: null,
      search: { words, match: 'any', prefix: false, phrases: [], without: [], texts: 'all', ...options },
      sort: [{ field: '_id', direction: 1 }],
    });
    const cases: { name: string; query: DocumentQuery; docIds: string[] }[] = [
      { name: 'any of the words', query: search(['pasta', 'trail']), docIds: ['guide', 'pasta', 'shoes'] },
      { name: 'all of the words', query: search(['mountain', 'trail'], { match: 'all' }), docIds: ['guide', 'shoes'] },
      { name: 'all, one missing', query: search(['mountain', 'pasta'], { match: 'all' }), docIds: [] },
      { name: 'any case and stem', query: search(['RUNNING']), docIds: ['pasta', 'shoes'] },
      { name: 'a stemmed word', query: search(['cook']), docIds: ['pasta'] },
      { name: 'word beginnings in the title and high texts', query: search(['moun', 'trai'], { prefix: true }), docIds: ['guide', 'shoes'] },
      // Autocomplete completes the words of the title and high texts only, as the original's highSearchWords.
      { name: 'no word beginnings in the low texts', query: search(['kitch', 'lightw'], { prefix: true }), docIds: [] },
      // ... but, as the original searches the words it completed in every text, whole words reach the low texts.
      { name: 'whole words of the low texts in an autocomplete', query: search(['kitchen', 'cooks'], { prefix: true, match: 'all' }), docIds: ['pasta'] },
      { name: 'whole stemmed words of any text in an autocomplete', query: search(['running'], { prefix: true }), docIds: ['pasta', 'shoes'] },
      { name: 'an autocomplete of public texts', query: search(['pres', 'laun'], { prefix: true, match: 'all', texts: 'public' }), docIds: [] },
      { name: 'whole words of public texts in an autocomplete', query: search(['press'], { prefix: true, texts: 'public' }), docIds: ['secret'] },
      { name: 'no hidden whole words in a public autocomplete', query: search(['budget'], { prefix: true, texts: 'public' }), docIds: [] },
      { name: 'a beginning longer than the stem', query: search(['runni'], { prefix: true }), docIds: ['shoes'] },
      { name: 'a whole word, not its beginning', query: search(['moun']), docIds: [] },
      { name: 'a phrase', query: search([], { phrases: [['small', 'kitchen']] }), docIds: ['pasta'] },
      { name: 'a phrase out of order', query: search([], { phrases: [['kitchen', 'small']] }), docIds: [] },
      {
        name: 'words and a phrase',
        query: search(['trail', 'pasta'], { phrases: [['trail', 'maps']] }),
        docIds: ['guide'],
      },
      { name: 'words left out', query: search(['mountain', 'pasta'], { without: ['shoes'] }), docIds: ['guide', 'pasta'] },
      { name: 'only words left out', query: search([], { without: ['shoes'] }), docIds: [] },
      { name: 'all texts', query: search(['budget']), docIds: ['secret'] },
      { name: 'public texts only', query: search(['budget'], { texts: 'public' }), docIds: [] },
      { name: 'public texts', query: search(['press', 'launch'], { texts: 'public', match: 'all' }), docIds: ['secret'] },
      { name: 'nothing to search for', query: search([]), docIds: [] },
      { name: 'words without letters', query: search(['!!!', '-', '*', '"', '()']), docIds: [] },
      { name: 'query syntax as text', query: search(['pasta" OR "shoes']), docIds: [] },
      { name: 'operators as words', query: search(['NEAR(pasta', 'AND', 'NOT', 'shoes)', 'title:guide']), docIds: ['shoes'] },
      { name: 'a combining mark alone', query: search(['\u0301']), docIds: [] },
    ];

    for (const { name, query, docIds } of cases) {
      it(`finds ${name}`, async () => {
        await insertIndexed(seed());
        assert.deepEqual(await findDocIds(query), docIds);
      });
    }

    it('combines a search with conditions and filters', async () => {
      await insertIndexed([
        ...seed(),
        [makeDoc({ docId: 'boots', archived: true }), makeIndex({}, { title: 'Mountain boots' })],
      ]);
      const query = { ...search(['mountain']), archived: false };
      assert.deepEqual(await findDocIds(query), ['guide', 'shoes']);
      assert.deepEqual(await findDocIds({ ...query, conditions: [{ key: 'x', op: 'none' }] }), ['guide', 'shoes']);
      assert.deepEqual(await findDocIds({ ...query, conditions: [{ key: 'x', op: 'in', values: ['y'] }] }), []);
    });

    it('ranks a title match above a body match, then by sort', async () => {
      await insertIndexed([
        [makeDoc({ docId: 'a' }), makeIndex({}, { low: 'A zebra crossing, another zebra, and the zebra again' })],
        [makeDoc({ docId: 'b' }), makeIndex({}, { title: 'The zebra' })],
        [makeDoc({ docId: 'c' }), makeIndex({}, { high: 'zebra' })],
        [makeDoc({ docId: 'd' }), makeIndex({}, { title: 'The zebra' })],
      ]);
      const query: DocumentQuery = { ...search(['zebra']), order: 'relevance', sort: [{ field: '_id', direction: -1 }] };
      assert.deepEqual(docIdsOf(await store().documents.find(query)), ['d', 'b', 'c', 'a']);
    });

    it('ranks by the public texts alone when searching them', async () => {
      await insertIndexed([
        [makeDoc({ docId: 'a' }), makeIndex({}, { title: 'zebra', publicLow: 'zebra' })],
        [makeDoc({ docId: 'b' }), makeIndex({}, { low: 'zebra', publicTitle: 'zebra' })],
      ]);
      const query: DocumentQuery = { ...search(['zebra'], { texts: 'public' }), order: 'relevance' };
      assert.deepEqual(docIdsOf(await store().documents.find(query)), ['b', 'a']);
    });
  });

  describe('documents: order of ids', () => {
    it('follows the order of ids, then sort', async () => {
      await insertIndexed(['a', 'b', 'c', 'd'].map((docId) => [makeDoc({ docId }), emptyIndex()]));
      const ids = ['c:en:draft', 'a:en:draft', 'missing', 'd:en:draft', 'c:en:draft'];
      const found = await store().documents.find({ type: 'article', ids, order: 'ids' });
      assert.deepEqual(idsOf(found), ['c:en:draft', 'a:en:draft', 'd:en:draft']);
      const paged = await store().documents.find({ type: 'article', ids, order: 'ids', skip: 1, limit: 1 });
      assert.deepEqual(idsOf(paged), ['a:en:draft']);
    });

    it('follows the order of docIds when there are no ids', async () => {
      await insertIndexed(
        [
          makeDoc({ docId: 'a' }),
          makeDoc({ docId: 'b', updatedAt: '2024-02-01T00:00:00.000Z' }),
          makeDoc({ docId: 'b', locale: 'fr', updatedAt: '2024-03-01T00:00:00.000Z' }),
          makeDoc({ docId: 'c' }),
        ].map((doc) => [doc, emptyIndex(placeOf(doc))]),
      );
      const query: DocumentQuery = { type: 'article', docIds: ['b', 'a'], order: 'ids', sort: [{ field: 'updatedAt', direction: -1 }] };
      assert.deepEqual(idsOf(await store().documents.find(query)), ['b:fr:draft', 'b:en:draft', 'a:en:draft']);
      assert.equal(await store().documents.count(query), 3);
    });
  });

  describe('documents: index writes', () => {
    const zebra = makeIndex({ category: ['news'] }, { title: 'zebra' });
    const words = (...list: string[]): DocumentQuery => ({
      type: null,
      search: { words: list, match: 'any', prefix: false, phrases: [], without: [], texts: 'all' },
    });
    const inCategory = (value: string): DocumentQuery => ({ type: null, conditions: [{ key: 'category', op: 'in', values: [value] }] });

    it('replaces the values and texts of a document on update', async () => {
      const doc = makeDoc({ docId: 'a' });
      await store().documents.insert(doc, zebra);
      assert.equal(await store().documents.update(doc, makeIndex({ category: ['arts'] }, { title: 'yak' })), true);
      assert.deepEqual(await findDocIds(inCategory('news')), []);
      assert.deepEqual(await findDocIds(inCategory('arts')), ['a']);
      assert.deepEqual(await findDocIds(words('zebra')), []);
      assert.deepEqual(await findDocIds(words('yak')), ['a']);
      assert.deepEqual(await store().documents.distinctValues({ type: null }, 'category'), [{ value: 'arts', count: 1 }]);
    });

    it('keeps, adds and removes each value on update as the new index has it, numbers and texts apart', async () => {
      const doc = makeDoc({ docId: 'a' });
      const other = makeDoc({ docId: 'b' });
      const before = makeIndex({ category: ['news', 'local news', '3'], priority: [3, 7], tags: ['x y'] });
      await insertIndexed([[doc, before], [other, before]]);
      await store().documents.update(doc, makeIndex({ category: ['local news', 'sport', '7'], priority: [3, 4], color: ['red'] }));
      const distinct = async (key: string) => (await store().documents.distinctValues({ type: null }, key)).map(({ value, count }) => [value, count]);
      assert.deepEqual(await distinct('category'), [['3', 1], ['7', 1], ['local news', 2], ['news', 1], ['sport', 1]]);
      assert.deepEqual(await distinct('priority'), [[3, 2], [4, 1], [7, 1]]);
      assert.deepEqual(await distinct('tags'), [['x y', 1]]);
      assert.deepEqual(await distinct('color'), [['red', 1]]);
      assert.deepEqual(await findDocIds({ type: null, conditions: [{ key: 'priority', op: 'in', values: [7] }] }), ['b']);
      assert.deepEqual(await findDocIds({ type: null, conditions: [{ key: 'category', op: 'in', values: ['7'] }] }), ['a']);
    });

    it('keeps the values and texts of a document updated without an index', async () => {
      const doc = makeDoc({ docId: 'a' });
      await store().documents.insert(doc, zebra);
      assert.equal(await store().documents.update({ ...doc, modified: true }), true);
      assert.deepEqual(await findDocIds(inCategory('news')), ['a']);
      assert.deepEqual(await findDocIds(words('zebra')), ['a']);
      assert.equal((await store().documents.find({ type: 'article', ids: [doc._id] }))[0]?.modified, true);
      assert.equal(await store().documents.update(makeDoc({ docId: 'unknown' })), false);
    });

    it('writes no index for an update of an unknown _id', async () => {
      assert.equal(await store().documents.update(makeDoc({ docId: 'a' }), zebra), false);
      assert.deepEqual(await store().documents.distinctValues({ type: null }, 'category'), []);
    });

    it('removes the values and texts with the document', async () => {
      await insertIndexed([
        [makeDoc({ docId: 'a' }), zebra],
        [makeDoc({ docId: 'b' }), zebra],
      ]);
      await store().documents.remove('article', ['b:en:draft']);
      // A document inserted afterwards may get the storage key the removed one had.
      await store().documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      assert.deepEqual(await findDocIds(words('zebra')), ['a']);
      assert.deepEqual(await findDocIds(inCategory('news')), ['a']);
      assert.deepEqual(await store().documents.distinctValues({ type: null }, 'category'), [{ value: 'news', count: 1 }]);
    });

    it('keeps no values or texts of a rolled-back insert', async () => {
      await store().documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      await assert.rejects(
        store().transaction(async (tx) => {
          await tx.documents.insert(makeDoc({ docId: 'b' }), zebra);
          assert.deepEqual(docIdsOf(await tx.documents.find(words('zebra'))), ['b']);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await store().documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      assert.deepEqual(await findDocIds(words('zebra')), []);
      assert.deepEqual(await findDocIds(inCategory('news')), []);
    });

    it('keeps no values or texts of an insert that conflicted', async () => {
      await store().documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      await store().transaction(async (tx) => {
        await assert.rejects(tx.documents.insert(makeDoc({ docId: 'b', slug: 'a' }), zebra));
        await tx.documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      });
      assert.deepEqual(await findDocIds(words('zebra')), []);
      assert.deepEqual(await findDocIds(inCategory('news')), []);
    });
  });
}
