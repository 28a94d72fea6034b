/** Who made a change, as a version's `updatedBy` names them. */
export interface HistoryAuthor {
  readonly _id: string | null;
  readonly title: string;
  readonly username: string | null;
}

/** What a history list shows of one entry. */
export interface HistorySummary {
  readonly _id: string;
  /** Milliseconds since the epoch: when the content it holds was saved (the last save merged into it). */
  readonly createdAt: number;
  readonly updatedBy: HistoryAuthor;
  readonly action: string;
  /** The mode of the version the change left as `data` (`draft`, `published`). */
  readonly cmsMode: string;
}

/** What merging a save into the newest entry compares: the entry without its content. */
export interface HistoryHead extends HistorySummary {
  /** The version's `_id` (`<docId>:<locale>:<mode>`). */
  readonly versionId: string;
  /** Milliseconds since the epoch: the first save merged into the entry (autosave merging counts from it). */
  readonly startedAt: number;
  /** The share of the history the entry counts against when entries are pruned by count (`prune`'s `pool`). */
  readonly pool: string;
}

/** One saved change of a document version in one locale, and the content the version held after it. */
export interface HistoryEntry extends HistoryHead {
  readonly type: string;
  readonly docId: string;
  readonly locale: string;
  readonly data: Record<string, unknown>;
}

/** A page of a history list (`HistoryStore.list`). */
export interface HistoryPage {
  readonly skip: number;
  readonly limit: number;
  readonly after?: { readonly createdAt: number; readonly id: string };
}

/** The document set and locale whose history is read or written; every lookup is scoped by all three. */
export interface HistoryScope {
  readonly type: string;
  readonly docId: string;
  readonly locale: string;
}

/**
 * The history of document versions, written in the transaction of the change it records. The
 * store knows no retention or merging rule: its callers (content/documents/history-recorder.ts) do.
 */
export interface HistoryStore {
  append(entry: HistoryEntry): Promise<void>;
  /** The newest entry of the scope, without its content (null: none). */
  latest(scope: HistoryScope): Promise<HistoryHead | null>;
  /** Replaces the content and author of an entry of the scope and moves its `createdAt` (an autosave merged into it). */
  merge(scope: HistoryScope, id: string, change: { readonly createdAt: number; readonly updatedBy: HistoryAuthor; readonly data: Record<string, unknown> }): Promise<void>;
  /**
   * The entries of the scope, newest first, `skip` and `limit` applied, with how many there are
   * (all of them). `after`: only those after that entry in this order, by its `createdAt` as read
   * then and its place among the entries of that millisecond (a keyset bound).
   */
  list(scope: HistoryScope, page: HistoryPage): Promise<{ total: number; entries: HistorySummary[] }>;
  /** One entry of the scope, content included; null when the id names none there. */
  get(scope: HistoryScope, id: string): Promise<HistoryEntry | null>;
  /**
   * Removes the entries of the scope saved before `before` (ms), and those of its `pool` past the
   * `keep` newest there; entries of other pools stay whatever their number. Indexed: the work is
   * the entries removed and, at most, the `keep` newest of the pool.
   */
  prune(scope: HistoryScope, rule: { readonly before: number; readonly pool: string; readonly keep: number }): Promise<void>;
  /** Removes every entry of the document set in these locales (the document is deleted). */
  removeDocument(type: string, docId: string, locales: readonly string[]): Promise<void>;
  /**
   * Up to `limit` entries appended after `afterSeq` (0: from the first), in the order appended,
   * content included (`cms export`; `append` in that order keeps it, and so the order of entries
   * saved in one millisecond).
   */
  entriesAfter(afterSeq: number, limit: number): Promise<SequencedHistoryEntry[]>;
}

/** An entry with its place in the store's order (the order entries were appended). */
export interface SequencedHistoryEntry {
  readonly seq: number;
  readonly entry: HistoryEntry;
}
