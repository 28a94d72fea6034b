import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, StoredDocument } from '../../src/storage/storage-adapter.js';
import { emptyIndex, makeDoc, placeOf } from './contract-helpers.js';

const early = '2024-01-01T00:00:00.000Z';
const later = '2024-06-01T00:00:00.000Z';
const latest = '2024-09-01T00:00:00.000Z';

/** What the relationships' bookkeeping relies on: `relatedReverseIds` kept per version, changed one id at a time. */
export function describeReverseIdsContract(adapterOf: () => StorageAdapter): void {
  describe('documents: reverse ids', () => {
    const person = (docId: string, properties: Partial<StoredDocument> = {}) =>
      makeDoc({ docId, type: 'person', cacheInvalidatedAt: early, ...properties });
    const read = async (id: string): Promise<StoredDocument | undefined> =>
      (await adapterOf().documents.find({ type: 'person', ids: [id] }))[0];

    it('adds and takes away one id at a time, in the order added, moving cacheInvalidatedAt and nothing else', async () => {
      const adapter = adapterOf();
      const ada = person('ada');
      await adapter.documents.insert(ada, emptyIndex(placeOf(ada)));
      const generation = await adapter.generation(['person']);
      await adapter.documents.relateBack('person', 'b', [{ versionId: ada._id, present: true }], later);
      assert.notEqual(await adapter.generation(['person']), generation, 'its cached answers are dropped');
      await adapter.documents.relateBack('person', 'a', [{ versionId: ada._id, present: true }], early);
      await adapter.documents.relateBack('person', 'b', [{ versionId: ada._id, present: true }], early);
      assert.deepEqual(await read(ada._id), { ...ada, relatedReverseIds: ['b', 'a'], cacheInvalidatedAt: later }, 'the later stamp stays');
      await adapter.documents.relateBack('person', 'b', [{ versionId: ada._id, present: false }], latest);
      assert.deepEqual(await read(ada._id), { ...ada, relatedReverseIds: ['a'], cacheInvalidatedAt: latest });
      await adapter.documents.relateBack('person', 'a', [{ versionId: ada._id, present: false }], latest);
      assert.deepEqual((await read(ada._id))?.relatedReverseIds, [], 'named once: an empty list');
    });

    it('marks no version that only loses an id it never had, and skips versions of other types and missing ones', async () => {
      const adapter = adapterOf();
      const grace = person('grace');
      const article = makeDoc({ docId: 'x' });
      for (const doc of [grace, article]) await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
      await adapter.documents.relateBack('person', 'a', [
        { versionId: grace._id, present: false },
        { versionId: article._id, present: true },
        { versionId: 'missing:en:draft', present: true },
      ], later);
      assert.deepEqual(await read(grace._id), { ...grace, cacheInvalidatedAt: later });
      assert.deepEqual((await adapter.documents.find({ type: 'article', ids: [article._id] }))[0], article);
      const missing = person('missing');
      await adapter.documents.insert(missing, emptyIndex(placeOf(missing)));
      assert.deepEqual(await read(missing._id), missing, 'no id was kept for it');
    });

    it('stores the ids a version is written with, in their order, and none when it has none; a removed version leaves none', async () => {
      const adapter = adapterOf();
      const ada = person('ada', { relatedReverseIds: ['x', 'y'] });
      await adapter.documents.insert(ada, emptyIndex(placeOf(ada)));
      assert.deepEqual(await read(ada._id), ada);
      assert.deepEqual((await adapter.documents.versionsAfter('person', null, 10))[0], ada, 'an export reads them');
      const rewritten = { ...ada, relatedReverseIds: ['z', 'y'] };
      await adapter.documents.update(rewritten);
      assert.deepEqual(await read(ada._id), { ...ada, relatedReverseIds: ['y', 'z'] }, 'y kept its place, z appended');
      const { relatedReverseIds: _dropped, ...without } = rewritten;
      await adapter.documents.update(without, emptyIndex(placeOf(ada)));
      assert.deepEqual(await read(ada._id), without);
      await adapter.documents.update(rewritten);
      await adapter.documents.remove('person', [ada._id]);
      const again = person('ada');
      await adapter.documents.insert(again, emptyIndex(placeOf(again)));
      assert.deepEqual(await read(ada._id), again);
    });

    it('reads the ids of a page of versions together, and leaves those never named as they are', async () => {
      const adapter = adapterOf();
      const docs = [person('a', { relatedReverseIds: ['s1'] }), person('b'), person('c', { relatedReverseIds: ['s2', 's1'] })];
      for (const doc of docs) await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
      const found = await adapter.documents.find({ type: 'person', locale: 'en', mode: 'draft', sort: [{ field: '_id', direction: 1 }] });
      assert.deepEqual(found, docs);
      const unread = await adapter.documents.find({ type: 'person', locale: 'en', mode: 'draft', sort: [{ field: '_id', direction: 1 }], reverseIds: false });
      assert.deepEqual(unread.map((doc) => doc.relatedReverseIds), [[], undefined, []], 'not read when not asked for: marked, empty');
    });
  });
}
