/**
 * One committed change to a document version, as the change stream announces it: what happened,
 * to which version, and what a reader needs to know whether it may be told (the version's
 * visibility and archived flag after the change; before it, for a delete).
 */
export interface ChangeEntry {
  /** The event: insert, update, publish, unpublish, archive, restore, delete, localize… */
  readonly action: string;
  readonly type: string;
  /** The version's `_id` (`<docId>:<locale>:<mode>`, or the docId of a non-localized type). */
  readonly id: string;
  readonly docId: string;
  readonly locale: string | null;
  readonly mode: string | null;
  readonly visibility: string;
  readonly archived: boolean;
  /**
   * The version's visibility before the change's transaction, when the change altered it (an
   * update, a publish): who could read it before may be told it left their view (the sync
   * API's tombstones). Absent or null: as `visibility`.
   */
  readonly visibilityBefore?: string | null;
  /** The version's `updatedAt` after the change (null when the change left none: a delete). */
  readonly updatedAt: string | null;
  /** The version's `updatedBy` after the change, as stored (`{ _id, title, username }`). */
  readonly updatedBy: unknown;
  /** When the change was written (ISO): retention counts from it. */
  readonly at: string;
}

/** A change with its place in the log: `seq` orders changes as they committed. */
export interface LoggedChange extends ChangeEntry {
  readonly seq: number;
}

/**
 * The change log: one entry per change to a document version, appended in the change's own
 * transaction, so none is announced that rolled back and none committed is missing. `seq` grows
 * in commit order (not only in insert order): a reader that has read up to a `seq` never meets a
 * smaller one later. Entries are removed by age alone (`prune`).
 */
export interface ChangeLogStore {
  append(entries: readonly ChangeEntry[]): Promise<void>;
  /** Up to `limit` entries after `afterSeq`, oldest first. */
  after(afterSeq: number, limit: number): Promise<LoggedChange[]>;
  /** The first `seq` still kept (null: none kept) and the last `seq` given (0: none ever). */
  bounds(): Promise<{ readonly oldest: number | null; readonly latest: number }>;
  /**
   * The greatest `seq` pruning removed (0: none). A reader at a smaller position has lost
   * entries. `bounds().oldest` cannot tell: on PostgreSQL a rolled back transaction leaves a gap
   * in the sequence, and a gap is no loss.
   */
  prunedThrough(): Promise<number>;
  /** Removes up to `limit` of the oldest entries written before `before` (ISO); answers how many. */
  prune(before: string, limit: number): Promise<number>;
  /**
   * The secret that signs positions in this log given to clients (the sync API's tokens): made
   * at random once (by the migration, or the first call), the same for every process on the store.
   */
  signingKey(): Promise<string>;
}
