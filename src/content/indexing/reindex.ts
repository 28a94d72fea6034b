import type { AppConfig } from '../app-config.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { StorageAdapter } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { DocumentIndexer } from './document-indexer.js';
import { backfillReverseIds } from './reverse-backfill.js';

// Versions rewritten per transaction: long enough to amortize the commit, short enough that
// writes of other processes are not held up for long.
const batchSize = 200;

export interface ReindexProgress {
  /** A type's stored index is stale: it is being derived again. */
  started(type: string): void;
  finished(type: string, versions: number, seconds: number): void;
}

/**
 * Brings each type's stored index up to the plan its configuration gives now: when the type's
 * filterable fields, searchable texts or public projection changed since its index was stored
 * (or the index format did, see indexFormat), the filter values, search texts and search
 * properties of every version are derived again, and the documents are otherwise left as they
 * are. Each batch locks and reads the versions it rewrites in a transaction of its own. A start that stops
 * half way starts again at the next one: the plan is recorded only at the end.
 */
export async function reindexStaleTypes(
  deps: { readonly config: AppConfig; readonly storage: StorageAdapter; readonly fieldTypes: FieldTypeLookup },
  progress?: ReindexProgress,
): Promise<void> {
  const indexer = new DocumentIndexer(deps.fieldTypes);
  const { storage } = deps;
  for (const type of deps.config.pieceTypes.values()) {
    const digest = indexer.planDigest(type);
    if ((await storage.indexPlans.digestOf(type.name)) === digest) continue;
    // A type without documents (every type of a new store) only needs its plan recorded.
    if ((await storage.documents.versionsAfter(type.name, null, 1)).length > 0) {
      progress?.started(type.name);
      const started = performance.now();
      const versions = await reindexType(storage, indexer, type);
      progress?.finished(type.name, versions, (performance.now() - started) / 1000);
    }
    await storage.indexPlans.record(type.name, digest);
  }
  await backfillReverseIds(deps);
}

/** Derives the index of every version of `type` again; returns how many there were. */
async function reindexType(storage: StorageAdapter, indexer: DocumentIndexer, type: SanitizedPieceType): Promise<number> {
  let versions = 0;
  for (let afterId: string | null = null; ; ) {
    const batch = await storage.documents.versionsAfter(type.name, afterId, batchSize);
    if (batch.length === 0) return versions;
    // Held, then read again as they are now: a write from another process that came between
    // is kept, not overwritten by the version read before it.
    await storage.transaction({ lock: batch.map((doc) => doc.cmsDocId) }, async (tx) => {
      const docs = await tx.documents.find({ type: type.name, ids: batch.map((doc) => doc._id) });
      for (const doc of docs) {
        const { index, properties } = indexer.index(type, doc);
        await tx.documents.update({ ...doc, ...properties }, index);
      }
    });
    versions += batch.length;
    afterId = batch.at(-1)!._id;
  }
}

/** Progress as log lines, for a start that takes longer than usual to say why. */
export function loggedProgress(log: { info(fields: object, message: string): void }): ReindexProgress {
  return {
    started: (type) => log.info({ type }, `indexing the ${type} documents again: the type's filterable fields, searchable texts or public projection changed, or the index format did`),
    finished: (type, versions, seconds) => log.info({ type, versions, seconds }, `indexed ${versions} versions of ${type} in ${seconds.toFixed(1)} s`),
  };
}
