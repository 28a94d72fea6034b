import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, StoredIdempotencyKey } from '../../src/storage/storage-adapter.js';

// Times in the future of today, so that real clocks play no part.
const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString();

function record(key: string, overrides: Partial<StoredIdempotencyKey> = {}): Omit<StoredIdempotencyKey, 'answer'> {
  return { scope: 'key:abc', key, fingerprint: 'f1', createdAt: at(0), expiresAt: at(60), resultId: `${key}:en:published`, ...overrides };
}

/** What replaying writes relies on: one live record per scope and key, written with the write or not at all. */
export function describeIdempotencyKeyContract(adapterOf: () => StorageAdapter): void {
  describe('idempotency keys', () => {
    it('claims a scope and key once while live, keeps the answer added later, and keeps scopes apart', async () => {
      const store = adapterOf().idempotencyKeys;
      assert.equal(await store.claim(record('k1'), at(0)), true);
      assert.deepEqual(await store.find('key:abc', 'k1', at(1)), { ...record('k1'), answer: null });
      assert.equal(await store.claim(record('k1', { fingerprint: 'f2', resultId: 'other' }), at(1)), false, 'a live record is kept');
      assert.equal((await store.find('key:abc', 'k1', at(1)))!.fingerprint, 'f1');
      assert.equal(await store.keepAnswer('key:abc', 'k1', 'f1', '{"document":{}}'), true);
      assert.equal(await store.keepAnswer('key:abc', 'k1', 'f2', 'another request\'s'), false, 'only for the request the record is of');
      assert.equal((await store.find('key:abc', 'k1', at(1)))!.answer, '{"document":{}}');
      assert.equal(await store.keepAnswer('key:abc', 'k1', 'f1', null), true, 'an answer can be cleared');
      assert.equal((await store.find('key:abc', 'k1', at(1)))!.answer, null);
      assert.equal(await store.find('user:u1', 'k1', at(1)), null, 'another scope has no record of it');
      assert.equal(await store.claim(record('k1', { scope: 'user:u1' }), at(1)), true, 'and claims it for itself');
      assert.equal(await store.keepAnswer('user:u2', 'k1', 'f1', 'x'), false);
    });

    it('forgets a record once it expires, and lets the key be claimed again', async () => {
      const store = adapterOf().idempotencyKeys;
      await store.claim(record('k2'), at(0));
      await store.keepAnswer('key:abc', 'k2', 'f1', 'first');
      assert.equal(await store.find('key:abc', 'k2', at(60)), null, 'expired at expiresAt');
      const again = record('k2', { fingerprint: 'f2', createdAt: at(60), expiresAt: at(120), resultId: 'second' });
      assert.equal(await store.claim(again, at(60)), true);
      assert.deepEqual(await store.find('key:abc', 'k2', at(61)), { ...again, answer: null }, 'the old answer went with it');
    });

    it('stores nothing of a claim whose transaction rolls back', async () => {
      const adapter = adapterOf();
      const failure = new Error('the write failed');
      await assert.rejects(
        adapter.transaction(async (tx) => {
          assert.equal(await tx.idempotencyKeys.claim(record('k3'), at(0)), true);
          throw failure;
        }),
        failure,
      );
      assert.equal(await adapter.idempotencyKeys.find('key:abc', 'k3', at(1)), null);
      assert.equal(await adapter.idempotencyKeys.claim(record('k3'), at(1)), true);
    });

    it('lets one of two transactions claiming one key at once commit its claim', async () => {
      const adapter = adapterOf();
      const claims = await Promise.all(
        ['f1', 'f2', 'f3'].map((fingerprint) => adapter.transaction((tx) => tx.idempotencyKeys.claim(record('k4', { fingerprint }), at(0)))),
      );
      assert.equal(claims.filter(Boolean).length, 1, JSON.stringify(claims));
      const kept = await adapter.idempotencyKeys.find('key:abc', 'k4', at(1));
      assert.equal(kept!.fingerprint, ['f1', 'f2', 'f3'][claims.indexOf(true)]);
    });

    it('prunes expired records in bounded batches, oldest first, and leaves the live ones', async () => {
      const store = adapterOf().idempotencyKeys;
      for (let i = 0; i < 5; i++) await store.claim(record(`old${i}`, { expiresAt: at(10 + i) }), at(0));
      await store.claim(record('live', { expiresAt: at(100) }), at(0));
      assert.equal(await store.prune(at(50), 3), 3);
      // The two left of the expired ones are the latest to expire: still found before they did.
      assert.equal(await store.find('key:abc', 'old2', at(0)), null);
      assert.notEqual(await store.find('key:abc', 'old3', at(0)), null);
      assert.equal(await store.prune(at(50), 3), 2);
      assert.equal(await store.prune(at(50), 3), 0);
      assert.notEqual(await store.find('key:abc', 'live', at(50)), null);
    });
  });
}
