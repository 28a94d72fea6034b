import type { HistoryAuthor, HistoryEntry, HistoryHead, HistorySummary } from './interface/history.js';

/** The columns of a history list row, as both adapters select them. */
export const historySummaryColumns = 'id, created_at, updated_by, action, mode';
export const historyHeadColumns = `${historySummaryColumns}, version_id, started_at, pool`;
export const historyEntryColumns = `${historyHeadColumns}, type, doc_id, locale, data`;
/** The newest first: `seq` orders the entries saved in one millisecond (a save and its publish). */
export const historyOrder = 'ORDER BY created_at DESC, seq DESC';

/** A row as the drivers answer it: SQLite gives JSON as text and integers as numbers, PostgreSQL json parsed and bigint as text. */
export interface HistoryRow {
  id: string;
  created_at: number | string;
  updated_by: string | HistoryAuthor;
  action: string;
  mode: string;
  type?: string;
  doc_id?: string;
  locale?: string;
  version_id?: string;
  started_at?: number | string;
  pool?: string;
  data?: string | Record<string, unknown>;
}

function parsed<T>(value: string | T): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

export function historySummaryOf(row: HistoryRow): HistorySummary {
  return { _id: row.id, createdAt: Number(row.created_at), updatedBy: parsed(row.updated_by), action: row.action, cmsMode: row.mode };
}

export function historyHeadOf(row: HistoryRow): HistoryHead {
  return { ...historySummaryOf(row), versionId: row.version_id!, startedAt: Number(row.started_at), pool: row.pool! };
}

export function historyEntryOf(row: HistoryRow): HistoryEntry {
  return { ...historyHeadOf(row), type: row.type!, docId: row.doc_id!, locale: row.locale!, data: parsed(row.data!) };
}

/** An entry with its `seq`, as the export pages read them. */
export function sequencedHistoryEntryOf(row: HistoryRow & { seq: number | string }): { seq: number; entry: HistoryEntry } {
  return { seq: Number(row.seq), entry: historyEntryOf(row) };
}

/** The values of an insert, in the order of `historyInsertColumns`. */
export const historyInsertColumns = 'id, type, doc_id, locale, version_id, mode, action, created_at, started_at, updated_by, data, pool';
export function historyInsertValues(entry: HistoryEntry): unknown[] {
  return [
    entry._id,
    entry.type,
    entry.docId,
    entry.locale,
    entry.versionId,
    entry.cmsMode,
    entry.action,
    entry.createdAt,
    entry.startedAt,
    JSON.stringify(entry.updatedBy),
    JSON.stringify(entry.data),
    entry.pool,
  ];
}
