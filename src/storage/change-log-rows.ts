import type { ChangeEntry, LoggedChange } from './interface/change-log.js';

/** The change_log columns both adapters write and read, in this order. */
export const changeLogInsertColumns = 'at, action, type, id, doc_id, locale, mode, visibility, archived, updated_at, updated_by, visibility_before';
export const changeLogColumns = `seq, ${changeLogInsertColumns}`;

export interface ChangeLogRow {
  readonly seq: number | string;
  readonly at: string;
  readonly action: string;
  readonly type: string;
  readonly id: string;
  readonly doc_id: string;
  readonly locale: string | null;
  readonly mode: string | null;
  readonly visibility: string;
  readonly archived: number | boolean;
  readonly updated_at: string | null;
  readonly updated_by: string | null;
  readonly visibility_before: string | null;
}

/** The values of one entry's row, in `changeLogInsertColumns` order (`archived` as the adapter stores a flag). */
export function changeLogRowValues(entry: ChangeEntry, flag: (value: boolean) => unknown): unknown[] {
  const { at, action, type, id, docId, locale, mode, visibility, archived, updatedAt, updatedBy, visibilityBefore } = entry;
  const updatedByText = updatedBy === undefined ? null : JSON.stringify(updatedBy);
  return [at, action, type, id, docId, locale, mode, visibility, flag(archived), updatedAt, updatedByText, visibilityBefore ?? null];
}

export function loggedChangeOf(row: ChangeLogRow): LoggedChange {
  return {
    seq: Number(row.seq),
    at: row.at,
    action: row.action,
    type: row.type,
    id: row.id,
    docId: row.doc_id,
    locale: row.locale,
    mode: row.mode,
    visibility: row.visibility,
    archived: row.archived === true || row.archived === 1,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by === null ? null : JSON.parse(row.updated_by),
    ...(row.visibility_before !== null && { visibilityBefore: row.visibility_before }),
  };
}
