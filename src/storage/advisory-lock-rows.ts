import type { AdvisoryLock } from './interface/advisory-locks.js';

/** The columns of `advisory_locks`, in both stores, and the lock each row is. */
export const advisoryLockColumns = 'version_id, tab_id, user_id, username, title, refreshed_at';

export interface AdvisoryLockRow {
  version_id: string;
  tab_id: string;
  user_id: string | null;
  username: string | null;
  title: string;
  /** PostgreSQL's bigint arrives as text: milliseconds since the epoch fit a double exactly. */
  refreshed_at: number | string;
}

export function advisoryLockOf(row: AdvisoryLockRow): AdvisoryLock {
  return {
    versionId: row.version_id,
    tabId: row.tab_id,
    userId: row.user_id,
    username: row.username,
    title: row.title,
    refreshedAt: Number(row.refreshed_at),
  };
}

/** The values of `advisoryLockColumns` for an insert, in order. */
export function advisoryLockValues(lock: AdvisoryLock): unknown[] {
  return [lock.versionId, lock.tabId, lock.userId, lock.username, lock.title, lock.refreshedAt];
}

/** Takes over the row of the version on a second put (both stores speak this upsert). */
export const advisoryLockUpsert = `ON CONFLICT (version_id) DO UPDATE SET tab_id = excluded.tab_id, user_id = excluded.user_id,
  username = excluded.username, title = excluded.title, refreshed_at = excluded.refreshed_at`;
