import type { AppConfig } from '../app-config.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { StorageAdapter } from '../../storage/storage-adapter.js';
import { ReverseBookkeeping } from '../documents/reverse-bookkeeping.js';

// Versions read per transaction, as the reindex's batches.
const batchSize = 200;

/**
 * The `indexPlans` key that records the backfill as done: not a type name (those never hold a
 * `:`), so no type's plan is mistaken for it.
 */
export const reverseBackfillKey = ':relatedReverseIds';
// 2: rich text's inline images count as relating to them (FieldType.inlineReferences).
const reverseBackfillVersion = '2';

/**
 * Once per store: gives the documents related to by versions stored before the bookkeeping was
 * kept their `relatedReverseIds` (and moves their `cacheInvalidatedAt` to the relating version's
 * `updatedAt` when that is later), as if each relating version had been written again. Runs at
 * start with the reindex; a start that stops half way does it again (adding an id is idempotent).
 */
export async function backfillReverseIds(deps: { readonly config: AppConfig; readonly storage: StorageAdapter; readonly fieldTypes: FieldTypeLookup }): Promise<void> {
  const { storage } = deps;
  if ((await storage.indexPlans.digestOf(reverseBackfillKey)) === reverseBackfillVersion) return;
  const bookkeeping = new ReverseBookkeeping({ config: deps.config, registry: deps.fieldTypes });
  for (const type of deps.config.pieceTypes.values()) {
    if (!bookkeeping.relates(type)) continue;
    for (let afterId: string | null = null; ; ) {
      const batch = await storage.documents.versionsAfter(type.name, afterId, batchSize);
      if (batch.length === 0) break;
      await storage.transaction({ lock: batch.map((doc) => doc.cmsDocId) }, async (tx) => {
        const docs = await tx.documents.find({ type: type.name, ids: batch.map((doc) => doc._id) });
        for (const doc of docs) await bookkeeping.afterWrite(tx, type, { before: null, after: doc }, doc.updatedAt);
      });
      afterId = batch.at(-1)!._id;
    }
  }
  await storage.indexPlans.record(reverseBackfillKey, reverseBackfillVersion);
}
