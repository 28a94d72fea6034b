import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { attachmentsGenerationKey as attachmentsScope } from '../../src/content/generation-keys.js';
import { emptyIndex, makeDoc } from './contract-helpers.js';
import { makeAttachment } from './attachment-store.contract.js';

const both = ['article', attachmentsScope];

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
      const before = await adapter.generation(both);
      await adapter.documents.find({ type: null });
      await adapter.documents.count({ type: 'article' });
      await adapter.attachments.find(['a1']);
      await other.documents.find({ type: null });
      assert.equal(await adapter.generation(both), before);
    });

    it('moves with every committed write to its scopes, top-level or in a transaction, and never comes back', async () => {
      const seen = new Set([await adapter.generation(both)]);
      const expectNew = async (what: string) => {
        const now = await adapter.generation(both);
        assert.ok(!seen.has(now), `${what} moves the generation`);
        seen.add(now);
      };
      await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      await expectNew('an insert');
      await adapter.transaction(async (tx) => {
        await tx.documents.update({ ...makeDoc({ docId: 'a' }), title: 'changed' }, emptyIndex());
      });
      await expectNew('a transaction');
      await adapter.documents.remove('article', [makeDoc({ docId: 'a' })._id]);
      await expectNew('a removal');
      await adapter.attachments.insert(makeAttachment('a1'));
      await expectNew('an attachment');
      await adapter.attachments.update({ ...makeAttachment('a1'), title: 'renamed' });
      await expectNew('an attachment update');
      await adapter.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
      const beforeUsage = await adapter.generation([attachmentsScope]);
      await adapter.attachments.setUsage(makeDoc({ docId: 'b' })._id, ['a1'], false);
      assert.notEqual(await adapter.generation([attachmentsScope]), beforeUsage, 'which versions use an attachment moves it');
    });

    it('stays where only other scopes were written', async () => {
      const article = await adapter.generation(['article']);
      const attachments = await adapter.generation([attachmentsScope]);
      const author = await adapter.generation(['author']);
      await adapter.documents.insert({ ...makeDoc({ docId: 'x' }), type: 'author' }, emptyIndex());
      await adapter.tokens.put({ token: 't', userId: 'u', expiresAt: new Date(Date.now() + 60_000).toISOString() });
      await adapter.attachments.insert(makeAttachment('a2'));
      assert.equal(await adapter.generation(['article']), article, 'an author, a token and an attachment leave the articles');
      assert.notEqual(await adapter.generation(['author']), author);
      assert.notEqual(await adapter.generation([attachmentsScope]), attachments);
      const attachmentsThen = await adapter.generation([attachmentsScope]);
      await adapter.documents.insert(makeDoc({ docId: 'y' }), emptyIndex());
      assert.equal(await adapter.generation([attachmentsScope]), attachmentsThen, 'an article without attachments leaves them');
      assert.notEqual(await adapter.generation(['article']), article);
    });

    it('moves with a write committed by another process on the same store, both ways', async () => {
      const mine = await adapter.generation(both);
      const theirs = await other.generation(both);
      await other.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
      assert.notEqual(await adapter.generation(both), mine, "the other process's write is seen");
      const afterTheirs = await other.generation(both);
      assert.notEqual(afterTheirs, theirs, 'the writer sees its own write');
      await adapter.documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      assert.notEqual(await other.generation(both), afterTheirs);
      const attachments = await other.generation([attachmentsScope]);
      await adapter.attachments.insert(makeAttachment('a3'));
      assert.notEqual(await other.generation([attachmentsScope]), attachments, "the other process's attachment is seen");
    });

    it("sees another process's commit at once while its own reads of the generation keep running", async () => {
      // Reads kept in flight all along: a call made after a commit must not be answered by one
      // of them that began before it.
      let reading = true;
      const background = (async () => {
        while (reading) {
          await Promise.all(Array.from({ length: 4 }, () => adapter.generation(both)));
          // A turn of the event loop each time: an adapter that answers without I/O (SQLite) would
          // otherwise never let the writes run.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      try {
        let last = await adapter.generation(both);
        for (let round = 0; round < 20; round++) {
          await other.documents.insert(makeDoc({ docId: `busy-${round}` }), emptyIndex());
          const now = await adapter.generation(both);
          assert.notEqual(now, last, `round ${round}: the commit is seen by the next call`);
          last = now;
        }
      } finally {
        reading = false;
        await background;
      }
    });
  });
}
