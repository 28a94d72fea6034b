/**
 * An editor's advisory lock on one document version (the original's `advisoryLock`): which tab
 * of which user holds it, and when it was last taken or refreshed. Whether it has expired is
 * the caller's rule; the store keeps it until it is released, taken over or its version removed.
 */
export interface AdvisoryLock {
  /** The version's `_id`. */
  readonly versionId: string;
  readonly tabId: string;
  /** The holder: a user's id, or null for a caller that is no user (an API key). */
  readonly userId: string | null;
  readonly username: string | null;
  readonly title: string;
  /** Milliseconds since the epoch. */
  readonly refreshedAt: number;
}

/** The advisory locks, read and written in the transaction that holds their document. */
export interface AdvisoryLockStore {
  get(versionId: string): Promise<AdvisoryLock | null>;
  /** Takes, refreshes or takes over the lock of `lock.versionId`. */
  put(lock: AdvisoryLock): Promise<void>;
  /** Releases the lock of the version when `tabId` holds it; otherwise leaves it. */
  release(versionId: string, tabId: string): Promise<void>;
  /** Forgets the locks of versions that are removed. */
  removeAll(versionIds: readonly string[]): Promise<void>;
}
