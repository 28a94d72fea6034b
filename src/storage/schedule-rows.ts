import type { Schedule, ScheduleAction, ScheduleStatus } from './storage-adapter.js';

/** What both adapters keep of a schedule: the columns of `schedules` they read. */
export const scheduleColumns = 'version_id, action, type, doc_id, locale, due_at, scheduled_by, status, attempts, unreviewed_change';

export interface ScheduleRow {
  version_id: string;
  action: ScheduleAction;
  type: string;
  doc_id: string;
  locale: string;
  due_at: number | string;
  scheduled_by: string;
  status: ScheduleStatus;
  attempts: number | string;
  unreviewed_change: string | null;
}

/** A row as the interface names it (PostgreSQL gives bigints as strings). */
export function scheduleOf(row: ScheduleRow): Schedule {
  return {
    versionId: row.version_id,
    action: row.action,
    type: row.type,
    docId: row.doc_id,
    locale: row.locale,
    dueAt: Number(row.due_at),
    by: row.scheduled_by,
    status: row.status,
    attempts: Number(row.attempts),
    unreviewedChange: row.unreviewed_change,
  };
}
