import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { emptyIndex, makeDoc } from './contract-helpers.js';

/**
 * Two adapters on one new, migrated store, as two server processes would have them; `cleanup`
 * runs after both are closed.
 */
export type MakeAdapterPair = () => Promise<{ adapter: StorageAdapter; other: StorageAdapter; cleanup: () => Promise<void> }>;

/** `StorageAdapter.generation`: what the response cache trusts to know that nothing was written. */
export function describeGenerationContract(
  name: string,
  makePair: MakeAdapterPair,
  options: { readonly stableWhenIdle?: false | string } = {},
): void {
  describe(`storage generation: ${name}`, () => {
    let adapter: StorageAdapter;
    let other: StorageAdapter;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ adapter, other, cleanup } = await makePair());
      await adapter.migrate();
      await other.migrate();
    });

    afterEach(async () => {
      await adapter.close();
      await other.close();
      await cleanup();
    });

    it('stays the same while nothing is written, reads included', { skip: options.stableWhenIdle ?? false }, async () => {
      const before = await adapter.generation();
      await adapter.documents.find({});
      await adapter.documents.count({ type: 'article' });
      await other.documents.find({});
      assert.equal(await adapter.generation(), before);
    });

    it('moves with every committed write, top-level or in a transaction, and never comes back', async () => {
      const seen = new Set([await adapter.generation()]);
      const expectNew = async (what: string) => {
        const now = await adapter.generation();
        assert.ok(!seen.has(now), `${what} moves the generation`);
        seen.add(now);
      };
      await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      await expectNew('an insert');
      await adapter.transaction(async (tx) => {
        await tx.documents.update({ ...makeDoc({ docId: 'a' }), title: 'changed' }, emptyIndex());
      });
      await expectNew('a transaction');
      await adapter.documents.remove([makeDoc({ docId: 'a' })._id]);
      await expectNew('a removal');
      await adapter.tokens.put({ token: 't', userId: 'u', expiresAt: new Date(Date.now() + 60_000).toISOString() });
      await expectNew('a token');
    });

    it('moves with a write committed by another process on the same store, both ways', async () => {
      const mine = await adapter.generation();
      const theirs = await other.generation();
      await other.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
      assert.notEqual(await adapter.generation(), mine, "the other process's write is seen");
      const afterTheirs = await other.generation();
      assert.notEqual(afterTheirs, theirs, 'the writer sees its own write');
      await adapter.documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      assert.notEqual(await other.generation(), afterTheirs);
    });
  });
}
