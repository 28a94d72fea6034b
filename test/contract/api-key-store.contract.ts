import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, StoredApiKey } from '../../src/storage/storage-adapter.js';
import { assertConflict } from './contract-helpers.js';

function makeKey(id: string, overrides: Partial<StoredApiKey> = {}): StoredApiKey {
  return {
    id,
    digest: `${id}-digest`.padEnd(64, '0'),
    role: 'editor',
    label: `${id} label`,
    hint: 'cms_abcd',
    createdAt: '2030-01-01T00:00:00.000Z',
    lastUsedAt: null,
    ...overrides,
  };
}

/** What stored API keys rely on: found by digest alone, listed oldest first, removed at once for every reader. */
export function describeApiKeyContract(adapterOf: () => StorageAdapter): void {
  describe('api keys', () => {
    it('stores a key and finds it by its digest only', async () => {
      const store = adapterOf().apiKeys;
      await store.insert(makeKey('k1'));
      assert.deepEqual(await store.findByDigest(makeKey('k1').digest), makeKey('k1'));
      assert.equal(await store.findByDigest('k1'), null, 'not by id');
      assert.equal(await store.findByDigest(makeKey('k2').digest), null);
    });

    it('lists every key oldest first, then by id', async () => {
      const store = adapterOf().apiKeys;
      await store.insert(makeKey('b', { createdAt: '2030-01-02T00:00:00.000Z' }));
      await store.insert(makeKey('c', { createdAt: '2030-01-01T00:00:00.000Z' }));
      await store.insert(makeKey('a', { createdAt: '2030-01-02T00:00:00.000Z', role: 'guest', label: '' }));
      assert.deepEqual(await store.list(), [
        makeKey('c', { createdAt: '2030-01-01T00:00:00.000Z' }),
        makeKey('a', { createdAt: '2030-01-02T00:00:00.000Z', role: 'guest', label: '' }),
        makeKey('b', { createdAt: '2030-01-02T00:00:00.000Z' }),
      ]);
    });

    it('refuses a second key with the same id or digest', async () => {
      const store = adapterOf().apiKeys;
      await store.insert(makeKey('k1'));
      await assertConflict(store.insert(makeKey('k1', { digest: 'f'.repeat(64) })), 'id');
      await assertConflict(store.insert(makeKey('k2', { digest: makeKey('k1').digest })), 'id');
      assert.deepEqual((await store.list()).map((key) => key.id), ['k1']);
    });

    it('removes a key once, and it is gone for every reader, in a transaction or not', async () => {
      const adapter = adapterOf();
      await adapter.apiKeys.insert(makeKey('k1'));
      await adapter.apiKeys.insert(makeKey('k2'));
      assert.equal(await adapter.transaction((tx) => tx.apiKeys.remove('k1')), true);
      assert.equal(await adapter.apiKeys.remove('k1'), false);
      assert.equal(await adapter.apiKeys.findByDigest(makeKey('k1').digest), null);
      assert.deepEqual((await adapter.apiKeys.list()).map((key) => key.id), ['k2']);
    });

    it('records the latest use only', async () => {
      const store = adapterOf().apiKeys;
      await store.insert(makeKey('k1'));
      await store.markUsed('k1', '2030-01-05T00:00:00.000Z');
      await store.markUsed('k1', '2030-01-04T00:00:00.000Z');
      await store.markUsed('nothing', '2030-01-05T00:00:00.000Z');
      assert.equal((await store.findByDigest(makeKey('k1').digest))?.lastUsedAt, '2030-01-05T00:00:00.000Z');
      await store.markUsed('k1', '2030-01-06T00:00:00.000Z');
      assert.equal((await store.list())[0]?.lastUsedAt, '2030-01-06T00:00:00.000Z');
    });

    it('keeps labels of any characters as written', async () => {
      const store = adapterOf().apiKeys;
      const label = `${'é'.repeat(300)}'"; DROP TABLE api_keys; --`;
      await store.insert(makeKey('k1', { label }));
      assert.equal((await store.findByDigest(makeKey('k1').digest))?.label, label);
    });
  });
}
