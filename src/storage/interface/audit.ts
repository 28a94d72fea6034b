import type { AuditRecord } from '../../core/audit.js';

export type { AuditActor, AuditRecord } from '../../core/audit.js';

/** What a list of records is narrowed to; every filter optional, all of them together. */
export interface AuditQuery {
  /** A user's `_id` or a username. */
  readonly actor?: string;
  readonly type?: string;
  readonly action?: string;
  /** ISO times: records at or after `since`, before `until`. */
  readonly since?: string;
  readonly until?: string;
}

/** A record with its place in the store's order (the order records were appended). */
export interface SequencedAuditRecord {
  readonly seq: number;
  readonly record: AuditRecord;
}

/**
 * The audit trail: records are appended in the transaction of the change they tell of, read
 * newest first, and removed only by the retention rules (`prune`), oldest first.
 */
export interface AuditStore {
  append(records: readonly AuditRecord[]): Promise<void>;
  /**
   * A page of the records the query matches, newest first; `after`: only those older than the
   * record of that id (a keyset bound: a deep page costs what the first does), none if it is gone.
   */
  list(query: AuditQuery, page: { readonly offset: number; readonly limit: number; readonly after?: string }): Promise<AuditRecord[]>;
  count(query: AuditQuery): Promise<number>;
  /** Up to `limit` records appended after `afterSeq` (0: from the first), oldest first (export). */
  after(afterSeq: number, limit: number): Promise<SequencedAuditRecord[]>;
  /**
   * Removes up to `limit` of the oldest records that are before `before` (ISO; null: none by
   * age) or beyond the newest `keep` (null: none by count); answers how many.
   */
  prune(args: { readonly before: string | null; readonly keep: number | null; readonly limit: number }): Promise<number>;
}
