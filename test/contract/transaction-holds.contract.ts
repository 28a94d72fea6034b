import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { makeAttachment } from './attachment-store.contract.js';
import { eachAdapterPair, emptyIndex, makeDoc, settlesWithin, signal, type MakeAdapterPair } from './contract-helpers.js';

const counted = makeDoc({ docId: 'counted', counter: 0 });

/** Reads the counted document, lets other work run, and writes it back counted up by one. */
function countUp(store: StorageAdapter): Promise<void> {
  return store.transaction({ lock: ['counted'] }, async (tx) => {
    const [doc] = await tx.documents.find({ type: 'article', ids: [counted._id] });
    await turn();
    await tx.documents.update({ ...doc!, counter: Number(doc!.counter) + 1 }, emptyIndex());
  });
}

/** Reads an attachment record, lets other work run, and writes it back with one more crop. */
function addCrop(store: StorageAdapter, n: number): Promise<void> {
  return store.transaction({ lockAttachments: ['held'] }, async (tx) => {
    const [record] = await tx.attachments.find(['held']);
    await turn();
    const { docIds: _docIds, archivedDocIds: _archived, ...stored } = record!;
    await tx.attachments.update({ ...stored, crops: [...stored.crops, { top: n, left: 0, width: 1, height: 1 }] });
  });
}

/**
 * `StorageAdapter.transaction` with `TransactionOptions`: what a transaction names it holds
 * from its start, so that a write that reads what it writes back loses nothing to another
 * writer, in this process or another.
 */
export function describeTransactionHoldsContract(name: string, makePair: MakeAdapterPair): void {
  describe(`transaction holds: ${name}`, () => {
    const pair = eachAdapterPair(makePair);

    it('serialises the writers of one document that hold it: no count is lost, across processes', async () => {
      await pair.adapter.documents.insert(counted, emptyIndex());
      await Promise.all([pair.adapter, pair.other].flatMap((store) => Array.from({ length: 15 }, () => countUp(store))));
      const [doc] = await pair.adapter.documents.find({ type: 'article', ids: [counted._id] });
      assert.equal(doc!.counter, 30);
    });

    it('makes a writer of a held document wait until the holder ends, a document not stored yet too', async () => {
      const holding = signal();
      const release = signal();
      const holder = pair.adapter.transaction({ lock: ['new'] }, async (tx) => {
        holding.fire();
        await release.promise;
        await tx.documents.insert(makeDoc({ docId: 'new', counter: 1 }), emptyIndex());
      });
      await holding.promise;
      const waiter = pair.other.transaction({ lock: ['new'] }, async (tx) => {
        const [doc] = await tx.documents.find({ type: 'article', docIds: ['new'] });
        await tx.documents.update({ ...doc!, counter: Number(doc!.counter) + 1 }, emptyIndex());
      });
      assert.equal(await settlesWithin(waiter, 300), false, 'the second writer waits');
      release.fire();
      await Promise.all([holder, waiter]);
      const [doc] = await pair.adapter.documents.find({ type: 'article', docIds: ['new'] });
      assert.equal(doc!.counter, 2, "the second writer read the first one's insert");
    });

    it('holds the documents documents.hold names from then on, as a lock taken at the start would', async () => {
      await pair.adapter.documents.insert(counted, emptyIndex());
      // The bookkeeping of relationships: a writer learns on the way which documents it writes back.
      const lateCountUp = (store: StorageAdapter) =>
        store.transaction(async (tx) => {
          await tx.documents.hold(['counted']);
          const [doc] = await tx.documents.find({ type: 'article', ids: [counted._id] });
          await turn();
          await tx.documents.update({ ...doc!, counter: Number(doc!.counter) + 1 }, emptyIndex());
        });
      await Promise.all([pair.adapter, pair.other].flatMap((store) => Array.from({ length: 10 }, () => [lateCountUp(store), countUp(store)]).flat()));
      const [doc] = await pair.adapter.documents.find({ type: 'article', ids: [counted._id] });
      assert.equal(doc!.counter, 40);
      await pair.adapter.documents.hold(['counted']);
    });

    it('serialises the writers of one attachment record that hold it', async () => {
      await pair.adapter.attachments.insert(makeAttachment('held'));
      await Promise.all([pair.adapter, pair.other].flatMap((store) => Array.from({ length: 10 }, (_, n) => addCrop(store, n))));
      const [record] = await pair.adapter.attachments.find(['held']);
      assert.equal(record!.crops.length, 20);
    });

    it('holds the records findHeld finds until the transaction ends; outside one it is find', async () => {
      await pair.adapter.attachments.insert(makeAttachment('held'));
      assert.deepEqual((await pair.adapter.attachments.findHeld(['held', 'missing'])).map((record) => record._id), ['held']);
      const holding = signal();
      const release = signal();
      const holder = pair.adapter.transaction(async (tx) => {
        assert.deepEqual((await tx.attachments.findHeld(['held'])).map((record) => record._id), ['held']);
        holding.fire();
        await release.promise;
      });
      await holding.promise;
      const remover = pair.other.transaction({ lockAttachments: ['held'] }, (tx) => tx.attachments.removeUnused('held', Date.now() + 1000));
      assert.equal(await settlesWithin(remover, 300), false, 'a writer that holds the record waits');
      release.fire();
      await holder;
      assert.equal(await remover, true);
    });
  });
}
