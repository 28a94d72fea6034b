import type { StorageAdapter } from '../../storage/storage-adapter.js';

/** Records removed per statement, and statements per run: each run's work is bounded, the next run goes on. */
const pruneBatch = 1_000;
const batchesPerRun = 20;

export interface AuditRetention {
  /** Records older than this many days go (0: kept however old). */
  readonly auditKeepDays: number;
  /** Only the newest this many stay (0: however many). */
  readonly auditKeepRecords: number;
}

/**
 * Removes the records the retention rules let go, oldest first, in small batches (each its own
 * short transaction, by index): run on a timer, never by a request. Answers how many went.
 */
export async function pruneAudit(storage: StorageAdapter, retention: AuditRetention, now = Date.now()): Promise<number> {
  const before = retention.auditKeepDays > 0 ? new Date(now - retention.auditKeepDays * 86_400_000).toISOString() : null;
  const keep = retention.auditKeepRecords > 0 ? retention.auditKeepRecords : null;
  if (before === null && keep === null) return 0;
  let removed = 0;
  for (let batch = 0; batch < batchesPerRun; batch++) {
    const count = await storage.transaction((tx) => tx.audit.prune({ before, keep, limit: pruneBatch }));
    removed += count;
    if (count < pruneBatch) break;
  }
  return removed;
}
