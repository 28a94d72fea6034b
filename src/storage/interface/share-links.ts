/**
 * Preview links of drafts (`POST :_id/share` with a lifetime): several per draft, each with its
 * own expiry, revocable one by one. Only the digest of a link's key is kept: the key itself is
 * shown once, when the link is made, as an API key is.
 */
export interface StoredShareLink {
  readonly id: string;
  /** The draft's `_id` (`<cmsDocId>:<locale>:draft`). */
  readonly versionId: string;
  /** SHA-256 of the key, base64url. */
  readonly digest: string;
  /** ISO 8601 (`Date.toISOString`), so that text order is time order. */
  readonly createdAt: string;
  /** Who made it, as JSON (`{ _id, title, username }`). */
  readonly createdBy: string;
  /** ISO 8601; null: never expires. */
  readonly expiresAt: string | null;
}

export interface ShareLinkStore {
  insert(link: StoredShareLink): Promise<void>;
  /** The link with this key digest, live or not. */
  findByDigest(digest: string): Promise<StoredShareLink | null>;
  /** The links of a draft that have not expired at `now`, newest first. */
  listLive(versionId: string, now: string): Promise<StoredShareLink[]>;
  /** Removes one link of a draft; true when it was there. */
  remove(versionId: string, id: string): Promise<boolean>;
  /** Removes the links of a draft; with `expiredAt`, only those expired at that time. */
  removeAll(versionId: string, expiredAt?: string): Promise<number>;
  /** Up to `limit` links, live or not, whose id sorts after `afterId` (null: from the first), by id (`cms export`). */
  linksAfter(afterId: string | null, limit: number): Promise<StoredShareLink[]>;
}
