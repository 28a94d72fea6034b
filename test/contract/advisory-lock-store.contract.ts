import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdvisoryLock, StorageAdapter } from '../../src/storage/storage-adapter.js';

function makeLock(versionId: string, overrides: Partial<AdvisoryLock> = {}): AdvisoryLock {
  return { versionId, tabId: 'tab-1', userId: 'user-1', username: 'ann', title: 'Ann', refreshedAt: 1_900_000_000_123, ...overrides };
}

/** What the advisory locks rely on: one per version, taken over in place, released only by its tab. */
export function describeAdvisoryLockContract(adapterOf: () => StorageAdapter): void {
  describe('advisory locks', () => {
    it('keeps one lock per version, as put, and replaces it on the next put', async () => {
      const store = adapterOf().advisoryLocks;
      assert.equal(await store.get('v1'), null);
      await adapterOf().transaction((tx) => tx.advisoryLocks.put(makeLock('v1')));
      assert.deepEqual(await store.get('v1'), makeLock('v1'));
      const other = makeLock('v1', { tabId: 'tab-2', userId: null, username: null, title: 'System Task', refreshedAt: 1_900_000_009_999 });
      await adapterOf().transaction((tx) => tx.advisoryLocks.put(other));
      assert.deepEqual(await store.get('v1'), other);
      assert.equal(await store.get('v2'), null);
    });

    it('releases a lock only for the tab that holds it, and forgets the locks of removed versions', async () => {
      const adapter = adapterOf();
      await adapter.transaction(async (tx) => {
        await tx.advisoryLocks.put(makeLock('v1'));
        await tx.advisoryLocks.put(makeLock('v2'));
        await tx.advisoryLocks.put(makeLock('v3'));
      });
      await adapter.transaction((tx) => tx.advisoryLocks.release('v1', 'tab-other'));
      assert.ok(await adapter.advisoryLocks.get('v1'));
      await adapter.transaction((tx) => tx.advisoryLocks.release('v1', 'tab-1'));
      assert.equal(await adapter.advisoryLocks.get('v1'), null);
      await adapter.transaction((tx) => tx.advisoryLocks.removeAll(['v2', 'v9']));
      assert.equal(await adapter.advisoryLocks.get('v2'), null);
      assert.ok(await adapter.advisoryLocks.get('v3'));
    });

    it('takes nothing back from a transaction that fails', async () => {
      const adapter = adapterOf();
      await assert.rejects(
        adapter.transaction(async (tx) => {
          await tx.advisoryLocks.put(makeLock('v1'));
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.equal(await adapter.advisoryLocks.get('v1'), null);
    });
  });
}
