/** Who did something, as an audit record keeps it: names and ids, never a credential. */
export interface AuditActor {
  /** `cli`: the command line (`cms import`), acting for the operator. */
  readonly kind: 'anonymous' | 'apiKey' | 'user' | 'cli';
  /** The user's `_id` (users only). */
  readonly _id: string | null;
  readonly username: string | null;
  readonly title: string | null;
  readonly role: string | null;
}

/** One audit record: who did what, when, from where, to which documents. Never changed once written. */
export interface AuditRecord {
  readonly id: string;
  /** ISO time. */
  readonly at: string;
  readonly actor: AuditActor;
  /** The client's address; null when there was no request (the command line). */
  readonly address: string | null;
  /** The request id of the HTTP request (as in the server's log lines); null without one. */
  readonly requestId: string | null;
  /** `document.publish`, `login.failed`, `apikey.create`… */
  readonly action: string;
  /** The piece type, when the action is about documents of one type. */
  readonly type: string | null;
  /** The affected documents' `cmsDocId`s (and version `_id`s), or a key's id. */
  readonly ids: readonly string[];
  /** A few facts worth keeping beside the ids (a locale, counts); never content or a secret. */
  readonly detail: Readonly<Record<string, unknown>> | null;
}

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
  /** A page of the records the query matches, newest first. */
  list(query: AuditQuery, page: { readonly offset: number; readonly limit: number }): Promise<AuditRecord[]>;
  count(query: AuditQuery): Promise<number>;
  /** Up to `limit` records appended after `afterSeq` (0: from the first), oldest first (export). */
  after(afterSeq: number, limit: number): Promise<SequencedAuditRecord[]>;
  /**
   * Removes up to `limit` of the oldest records that are before `before` (ISO; null: none by
   * age) or beyond the newest `keep` (null: none by count); answers how many.
   */
  prune(args: { readonly before: string | null; readonly keep: number | null; readonly limit: number }): Promise<number>;
}
