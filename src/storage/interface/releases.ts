/**
 * Releases (issue 38): a set of drafts, of any types and locales, published together in one
 * transaction, now or at `publishAt`, and reverted together.
 */
export type ReleaseState = 'open' | 'published' | 'failed' | 'reverted';

export interface StoredRelease {
  readonly id: string;
  readonly title: string;
  /** ISO 8601; null: published by hand only. */
  readonly publishAt: string | null;
  readonly state: ReleaseState;
  /** ISO 8601 (`Date.toISOString`), so that text order is time order. */
  readonly createdAt: string;
  /** Who made it, as JSON (`{ _id, title, username }`). */
  readonly createdBy: string;
  readonly updatedAt: string;
  readonly publishedAt: string | null;
  /** Who published it (or whose schedule did), as JSON; null until published. */
  readonly publishedBy: string | null;
  /** Why its scheduled run failed; null otherwise. */
  readonly failure: string | null;
}

/** One draft of a release. */
export interface StoredReleaseDocument {
  /** The draft's `_id` (`<cmsDocId>:<locale>:draft`). */
  readonly versionId: string;
  readonly type: string;
  /** Set when the release published it: whether it had a published version before (a revert then unpublishes it when not). */
  readonly wasPublished: boolean | null;
}

export interface ReleaseStore {
  insert(release: StoredRelease): Promise<void>;
  find(id: string): Promise<StoredRelease | null>;
  /** Up to `limit` releases, newest first, created before the release `beforeId` (null: from the newest). */
  list(limit: number, beforeId: string | null): Promise<StoredRelease[]>;
  /** Changes title and publishAt of an open or failed release; false when there is none such. */
  edit(id: string, changes: { title: string; publishAt: string | null; updatedAt: string }): Promise<boolean>;
  /**
   * Moves the release from one of `from` to `to` with the given facts: true when it was in one
   * of `from`. Run in a transaction, it holds the release's row to its end: two transactions
   * never both move it (a claim-once across processes).
   */
  transition(id: string, from: readonly string[], to: { state: string; updatedAt: string; publishedAt?: string | null; publishedBy?: string | null; failure?: string | null }): Promise<boolean>;
  /** Removes a release that is not published, with its documents; false when there is none such. */
  remove(id: string): Promise<boolean>;
  /** Adds drafts (those already in it are left as they are). */
  addDocuments(releaseId: string, documents: readonly { versionId: string; type: string }[]): Promise<void>;
  removeDocuments(releaseId: string, versionIds: readonly string[]): Promise<number>;
  documents(releaseId: string): Promise<StoredReleaseDocument[]>;
  countDocuments(releaseId: string): Promise<number>;
  /** Records, at publish time, which of its drafts had a published version before. */
  markPublished(releaseId: string, wasPublished: readonly string[], firstPublished: readonly string[]): Promise<void>;
  /** Ids of open releases due at `now`, oldest due first. */
  due(now: string, limit: number): Promise<string[]>;
}
