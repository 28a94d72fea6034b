import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, StoredDocument, StoredShareLink } from '../../src/storage/storage-adapter.js';
import { idsOf, makeDoc, makeIndex, placeOf } from './contract-helpers.js';

function makeLink(id: string, overrides: Partial<StoredShareLink> = {}): StoredShareLink {
  return { id, versionId: 'd1:en:draft', digest: `digest-${id}`, createdAt: '2030-01-01T00:00:00.000Z', createdBy: '{"title":"Ann"}', expiresAt: null, ...overrides };
}

/** Preview links (issue 25): kept by digest, listed live by draft, removed one by one or all. */
export function describeShareLinkContract(adapterOf: () => StorageAdapter): void {
  describe('share links', () => {
    it('finds a link by digest, lists the live ones of a draft newest first, removes one or all, expired ones alone', async () => {
      const adapter = adapterOf();
      await adapter.transaction(async (tx) => {
        await tx.shareLinks.insert(makeLink('a', { createdAt: '2030-01-01T00:00:00.000Z', expiresAt: '2030-01-02T00:00:00.000Z' }));
        await tx.shareLinks.insert(makeLink('b', { createdAt: '2030-01-01T00:00:01.000Z' }));
        await tx.shareLinks.insert(makeLink('c', { createdAt: '2030-01-01T00:00:02.000Z', expiresAt: '2030-01-01T12:00:00.000Z' }));
        await tx.shareLinks.insert(makeLink('x', { versionId: 'd2:en:draft' }));
      });
      assert.deepEqual(await adapter.shareLinks.findByDigest('digest-a'), makeLink('a', { expiresAt: '2030-01-02T00:00:00.000Z' }));
      assert.equal(await adapter.shareLinks.findByDigest('nope'), null);
      const live = async (now: string) => (await adapter.shareLinks.listLive('d1:en:draft', now)).map((link) => link.id);
      assert.deepEqual(await live('2030-01-01T06:00:00.000Z'), ['c', 'b', 'a']);
      assert.deepEqual(await live('2030-01-01T12:00:00.000Z'), ['b', 'a'], 'expired at its very time');
      assert.equal(await adapter.transaction((tx) => tx.shareLinks.removeAll('d1:en:draft', '2030-01-01T12:00:00.000Z')), 1);
      assert.equal(await adapter.shareLinks.findByDigest('digest-c'), null);
      assert.equal(await adapter.transaction((tx) => tx.shareLinks.remove('d2:en:draft', 'a')), false, 'another draft\'s link');
      assert.equal(await adapter.transaction((tx) => tx.shareLinks.remove('d1:en:draft', 'a')), true);
      assert.equal(await adapter.transaction((tx) => tx.shareLinks.removeAll('d1:en:draft')), 1);
      assert.deepEqual(await live('2029-01-01T00:00:00.000Z'), []);
      assert.ok(await adapter.shareLinks.findByDigest('digest-x'));
    });
  });
}

/** `localeChain`: one version per document, its first along the chain, counted and paged as one list. */
export function describeLocaleChainContract(adapterOf: () => StorageAdapter): void {
  describe('locale chain', () => {
    const published = (docId: string, locale: string, extra: Partial<StoredDocument> = {}) => makeDoc({ docId, locale, mode: 'published', ...extra });

    it('selects each document once in its first locale along the chain, with archived and visibility applied before the choice', async () => {
      const adapter = adapterOf();
      const docs = [
        published('a', 'en'),
        published('b', 'en'), published('b', 'es'),
        published('c', 'en'), published('c', 'es'), published('c', 'es-mx'),
        published('d', 'en'), published('d', 'es', { archived: true }),
        published('e', 'en'), published('e', 'es', { visibility: 'loginRequired' }),
        published('f', 'fr'),
        makeDoc({ docId: 'g', locale: 'es-mx', mode: 'draft' }),
      ];
      for (const doc of docs) {
        const visibility = doc.visibility === 'loginRequired' ? 'loginRequired' : 'public';
        await adapter.documents.insert({ ...doc, visibility }, makeIndex({ category: [doc.cmsDocId as string] }, {}, placeOf(doc)));
      }
      const chain = ['es-mx', 'es', 'en'];
      const query = { type: 'article', localeChain: chain, mode: 'published' as const, archived: false, visibility: ['public'], sort: [{ field: '_id', direction: 1 as const }] };
      const all = await adapter.documents.find(query);
      assert.deepEqual(idsOf(all), ['a:en:published', 'b:es:published', 'c:es-mx:published', 'd:en:published', 'e:en:published']);
      assert.equal(await adapter.documents.count(query), 5);
      // Pages of one list.
      const page2 = await adapter.documents.find({ ...query, skip: 2, limit: 2 });
      assert.deepEqual(idsOf(page2), ['c:es-mx:published', 'd:en:published']);
      // Conditions apply to the version picked.
      const picked = await adapter.documents.find({ ...query, conditions: [{ key: 'category', op: 'in', values: ['b', 'c'] }] });
      assert.deepEqual(idsOf(picked), ['b:es:published', 'c:es-mx:published']);
      // Any visibility: the members-only es version is e's first.
      const members = await adapter.documents.find({ ...query, visibility: undefined, docIds: ['e'] });
      assert.deepEqual(idsOf(members), ['e:es:published']);
      // The values of the versions picked, each counted once.
      assert.deepEqual(await adapter.documents.heldValues(query, 'category'), ['a', 'b', 'c', 'd', 'e']);
      assert.deepEqual(await adapter.documents.distinctValues(query, 'category'), ['a', 'b', 'c', 'd', 'e'].map((value) => ({ value, count: 1 })));
    });

    it('reads a locale\'s part of the chain, and the versions that earlier locales shadow', async () => {
      const adapter = adapterOf();
      const docs = [
        published('a', 'en'),
        published('b', 'en'), published('b', 'es'),
        published('c', 'en'), published('c', 'es-mx'),
        published('d', 'en'), published('d', 'es', { archived: true }),
        makeDoc({ docId: 'e', locale: 'es', mode: 'draft' }), published('e', 'en'),
      ];
      for (const doc of docs) await adapter.documents.insert(doc, makeIndex({ category: [doc.cmsDocId as string] }, {}, placeOf(doc)));
      const chain = ['es-mx', 'es', 'en'];
      const base = { type: 'article', mode: 'published' as const, archived: false, sort: [{ field: '_id', direction: 1 as const }] };
      const part = { ...base, locale: 'en', localeChain: chain };
      assert.deepEqual(idsOf(await adapter.documents.find(part)), ['a:en:published', 'd:en:published', 'e:en:published']);
      assert.equal(await adapter.documents.count(part), 3);
      assert.deepEqual(await adapter.documents.heldValues(part, 'category'), ['a', 'd', 'e']);
      const shadowed = { ...base, locale: 'en', shadowedIn: ['es-mx', 'es'] };
      assert.deepEqual(idsOf(await adapter.documents.find(shadowed)), ['b:en:published', 'c:en:published']);
      assert.equal(await adapter.documents.count(shadowed), 2);
      assert.deepEqual(idsOf(await adapter.documents.find({ ...base, locale: 'es', localeChain: chain })), ['b:es:published']);
    });
  });
}
