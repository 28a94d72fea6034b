/**
 * Review of drafts (issue 38): the comments on a draft, and the approve links a publisher makes
 * for an anonymous approver. The draft's stage and reviewers live on the draft itself
 * (`cmsReview`); these rows live beside it, so that commenting writes no version.
 */
export interface StoredReviewComment {
  readonly id: string;
  /** The draft's `_id` (`<cmsDocId>:<locale>:draft`). */
  readonly versionId: string;
  /** A field path of the type, or null for the whole document. */
  readonly field: string | null;
  readonly body: string;
  /** ISO 8601, so that text order is time order. */
  readonly createdAt: string;
  /** Who wrote it, as JSON (`{ _id, title, username }`). */
  readonly createdBy: string;
  readonly resolved: boolean;
  /** ISO 8601 when resolved, else null. */
  readonly resolvedAt: string | null;
}

/** An approve link: only the digest of its key is kept; bound to the draft's content when made. */
export interface StoredReviewLink {
  readonly digest: string;
  readonly versionId: string;
  /** The digest of the draft's content when the link was made: a changed draft is not approved by it. */
  readonly contentDigest: string;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly expiresAt: string;
  /** ISO 8601 when used; a link approves once. */
  readonly usedAt: string | null;
}

export interface ReviewStore {
  insertComment(comment: StoredReviewComment): Promise<void>;
  /** The comments of a draft, oldest first, at most `limit`. */
  listComments(versionId: string, limit: number): Promise<StoredReviewComment[]>;
  countComments(versionId: string): Promise<number>;
  /** Marks one comment of a draft resolved or not; the comment as it is then, or null when there is none. */
  resolveComment(versionId: string, id: string, resolved: boolean, at: string): Promise<StoredReviewComment | null>;
  removeComments(versionId: string): Promise<number>;
  insertLink(link: StoredReviewLink): Promise<void>;
  findLink(digest: string): Promise<StoredReviewLink | null>;
  /** Marks the link used at `at` unless it was used already; true when this call used it. */
  useLink(digest: string, at: string): Promise<boolean>;
}
