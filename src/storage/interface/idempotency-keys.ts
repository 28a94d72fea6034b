/**
 * The records of writes sent with an `Idempotency-Key` header (content/documents/idempotency.ts):
 * one per caller scope and key, written in the write's own transaction, so that a write that
 * committed always has its record and one that did not has none. The answer itself is added
 * after the commit, when it has been presented.
 */
export interface StoredIdempotencyKey {
  /** Who sent it (`user:<id>`, `key:<SHA-256 of the API key>`): a key never crosses callers. */
  readonly scope: string;
  /** The header's value, as sent. */
  readonly key: string;
  /** A digest of the request (method, path with query, body): a key names one request. */
  readonly fingerprint: string;
  /** ISO 8601 (`Date.toISOString`), so that text order is time order. */
  readonly createdAt: string;
  /** ISO 8601; from then on the record is as good as gone, and pruned. */
  readonly expiresAt: string;
  /** The `_id` of the version the write answered. */
  readonly resultId: string;
  /** The answer as JSON, once kept after the commit; null until then (or when keeping it failed). */
  readonly answer: string | null;
}

export interface IdempotencyKeyStore {
  /**
   * Stores a record without an answer, unless a live one (`expiresAt` after `now`) holds its
   * scope and key: true when stored (an expired one is replaced). While another transaction
   * that stored the same scope and key is open, waits for its end (PostgreSQL), so that of two
   * writes with one key at most one ever commits its record.
   */
  claim(record: Omit<StoredIdempotencyKey, 'answer'>, now: string): Promise<boolean>;
  /** The live record of a scope and key at `now`, else null. */
  find(scope: string, key: string, now: string): Promise<StoredIdempotencyKey | null>;
  /**
   * Sets (or, with null, clears) the answer of the record of a scope and key made for the request
   * of `fingerprint`; false when there is none (another request's took the key once it expired).
   */
  keepAnswer(scope: string, key: string, fingerprint: string, answer: string | null): Promise<boolean>;
  /** Removes up to `limit` records expired at `now`, the oldest first (on an index); answers how many. */
  prune(now: string, limit: number): Promise<number>;
}
