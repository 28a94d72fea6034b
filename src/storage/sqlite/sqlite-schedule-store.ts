import type { ScheduleStore } from '../storage-adapter.js';
import { scheduleColumns as columns, scheduleOf, type ScheduleRow } from '../schedule-rows.js';
import type { StatementSource } from './statement-cache.js';

const putSql = `INSERT INTO schedules (version_id, action, type, doc_id, locale, due_at, scheduled_by, status)
  VALUES (@versionId, @action, @type, @docId, @locale, @dueAt, @by, @status)
  ON CONFLICT (version_id, action) DO UPDATE SET type = excluded.type, doc_id = excluded.doc_id, locale = excluded.locale,
    due_at = excluded.due_at, scheduled_by = excluded.scheduled_by, status = excluded.status, attempts = 0, lease_until = 0, lease_token = NULL, unreviewed_change = NULL`;
const removeSql = 'DELETE FROM schedules WHERE version_id = @versionId AND action = @action';
// One UPDATE: SQLite runs it under the file's write lock, so no two processes claim one row.
const claimSql = `UPDATE schedules SET lease_until = @until, lease_token = @token, attempts = attempts + 1
  WHERE (version_id, action) IN (
    SELECT version_id, action FROM schedules
    WHERE status = 'pending' AND due_at <= @now AND lease_until <= @now
    ORDER BY due_at LIMIT @limit)
  RETURNING ${columns}`;
const anyDueSql = `SELECT 1 FROM schedules WHERE status = 'pending' AND due_at <= @now AND lease_until <= @now LIMIT 1`;
const completeSql = `DELETE FROM schedules WHERE version_id = @versionId AND action = @action AND lease_token = @token RETURNING ${columns}`;
const failSql = `UPDATE schedules SET status = 'failed', lease_until = 0, lease_token = NULL
  WHERE version_id = @versionId AND action = @action AND lease_token = @token`;
// `schedules_due` (status, due_at) gives the order: the walk stops at the limit.
const soonestSql = `SELECT ${columns} FROM schedules
  WHERE status = 'pending' AND locale = @locale AND type IN (SELECT value FROM json_each(@types))
  ORDER BY due_at, version_id, action LIMIT @limit`;
const afterSql = `SELECT ${columns} FROM schedules WHERE (version_id, action) > (@versionId, @action) ORDER BY version_id, action LIMIT @limit`;
const restoreSql = `INSERT INTO schedules (version_id, action, type, doc_id, locale, due_at, scheduled_by, status, attempts, unreviewed_change)
  VALUES (@versionId, @action, @type, @docId, @locale, @dueAt, @by, @status, @attempts, @unreviewedChange)`;
const unreviewedSql = 'UPDATE schedules SET unreviewed_change = @change WHERE version_id = @versionId AND action = @action';

/** The schedules table, read and written through the given connection's statements. */
export function createSqliteScheduleStore(statements: StatementSource): ScheduleStore {
  return {
    async put({ versionId, action, type, docId, locale, dueAt, by }, status = 'pending') {
      statements.statement(putSql).run({ versionId, action, type, docId, locale, dueAt, by, status });
    },

    async remove({ versionId, action }) {
      return statements.statement(removeSql).run({ versionId, action }).changes === 1;
    },

    async claimDue({ now, leaseMs, token, limit }) {
      const rows = statements.statement(claimSql).all({ now, until: now + leaseMs, token, limit }) as ScheduleRow[];
      // RETURNING gives no order.
      return rows.map(scheduleOf).sort((a, b) => a.dueAt - b.dueAt);
    },

    async anyDue(now) {
      return statements.statement(anyDueSql).get({ now }) !== undefined;
    },

    async complete({ versionId, action }, token) {
      const row = statements.statement(completeSql).get({ versionId, action, token }) as ScheduleRow | undefined;
      return row ? scheduleOf(row) : null;
    },

    async fail({ versionId, action }, token) {
      return statements.statement(failSql).run({ versionId, action, token }).changes === 1;
    },

    async soonestPending({ types, locale, limit }) {
      if (types.length === 0) return [];
      const rows = statements.statement(soonestSql).all({ types: JSON.stringify(types), locale, limit }) as ScheduleRow[];
      return rows.map(scheduleOf);
    },

    async schedulesAfter(after, limit) {
      const rows = statements.statement(afterSql).all({ versionId: after?.versionId ?? '', action: after?.action ?? '', limit }) as ScheduleRow[];
      return rows.map(scheduleOf);
    },

    async restore({ versionId, action, type, docId, locale, dueAt, by, status, attempts, unreviewedChange }) {
      statements.statement(restoreSql).run({ versionId, action, type, docId, locale, dueAt, by, status, attempts, unreviewedChange });
    },

    async setUnreviewedChange({ versionId, action }, change) {
      return statements.statement(unreviewedSql).run({ versionId, action, change }).changes === 1;
    },
  };
}
