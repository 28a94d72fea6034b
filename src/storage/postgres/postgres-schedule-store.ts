import type { ScheduleStore } from '../storage-adapter.js';
import { scheduleColumns as columns, scheduleOf, type ScheduleRow } from '../schedule-rows.js';
import type { StatementSource } from './statements.js';

const putSql = `INSERT INTO schedules (version_id, action, type, doc_id, locale, due_at, scheduled_by, status)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::text, $8::text)
  ON CONFLICT (version_id, action) DO UPDATE SET type = EXCLUDED.type, doc_id = EXCLUDED.doc_id, locale = EXCLUDED.locale,
    due_at = EXCLUDED.due_at, scheduled_by = EXCLUDED.scheduled_by, status = EXCLUDED.status, attempts = 0, lease_until = 0, lease_token = NULL, unreviewed_change = NULL`;
const removeSql = 'DELETE FROM schedules WHERE version_id = $1::text AND action = $2::text';
// A row lease in one statement, no session state (a pooler in transaction mode may put each
// statement on another connection). SKIP LOCKED: processes claiming at once take other rows
// instead of waiting for each other; the lease keeps a claimed row from the next claimer.
const claimSql = `UPDATE schedules SET lease_until = $2::bigint, lease_token = $3::text, attempts = attempts + 1
  WHERE (version_id, action) IN (
    SELECT version_id, action FROM schedules
    WHERE status = 'pending' AND due_at <= $1::bigint AND lease_until <= $1::bigint
    ORDER BY due_at LIMIT $4::int
    FOR UPDATE SKIP LOCKED)
  RETURNING ${columns}`;
const anyDueSql = `SELECT 1 FROM schedules WHERE status = 'pending' AND due_at <= $1::bigint AND lease_until <= $1::bigint LIMIT 1`;
const completeSql = `DELETE FROM schedules WHERE version_id = $1::text AND action = $2::text AND lease_token = $3::text RETURNING ${columns}`;
const failSql = `UPDATE schedules SET status = 'failed', lease_until = 0, lease_token = NULL
  WHERE version_id = $1::text AND action = $2::text AND lease_token = $3::text`;
// `schedules_due` (status, due_at) gives the order: the walk stops at the limit.
const soonestSql = `SELECT ${columns} FROM schedules
  WHERE status = 'pending' AND locale = $1::text AND type = ANY($2::text[])
  ORDER BY due_at, version_id, action LIMIT $3::int`;
const afterSql = `SELECT ${columns} FROM schedules WHERE (version_id, action) > ($1::text, $2::text) ORDER BY version_id, action LIMIT $3::int`;
const restoreSql = `INSERT INTO schedules (version_id, action, type, doc_id, locale, due_at, scheduled_by, status, attempts, unreviewed_change)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::text, $8::text, $9::int, $10::text)`;
const unreviewedSql = 'UPDATE schedules SET unreviewed_change = $3::text WHERE version_id = $1::text AND action = $2::text';

/** The schedules table, read and written through the given statements. */
export function createPostgresScheduleStore(statements: StatementSource): ScheduleStore {
  return {
    async put({ versionId, action, type, docId, locale, dueAt, by }, status = 'pending') {
      await statements.prepared(putSql, [versionId, action, type, docId, locale, dueAt, by, status]);
    },

    async remove({ versionId, action }) {
      const { rowCount } = await statements.prepared(removeSql, [versionId, action]);
      return rowCount === 1;
    },

    async claimDue({ now, leaseMs, token, limit }) {
      const { rows } = await statements.prepared<ScheduleRow>(claimSql, [now, now + leaseMs, token, limit]);
      // RETURNING gives no order.
      return rows.map(scheduleOf).sort((a, b) => a.dueAt - b.dueAt);
    },

    async anyDue(now) {
      const { rows } = await statements.prepared(anyDueSql, [now]);
      return rows.length > 0;
    },

    async complete({ versionId, action }, token) {
      const { rows } = await statements.prepared<ScheduleRow>(completeSql, [versionId, action, token]);
      return rows[0] ? scheduleOf(rows[0]) : null;
    },

    async fail({ versionId, action }, token) {
      const { rowCount } = await statements.prepared(failSql, [versionId, action, token]);
      return rowCount === 1;
    },

    async soonestPending({ types, locale, limit }) {
      if (types.length === 0) return [];
      const { rows } = await statements.prepared<ScheduleRow>(soonestSql, [locale, types, limit]);
      return rows.map(scheduleOf);
    },

    async schedulesAfter(after, limit) {
      const { rows } = await statements.prepared<ScheduleRow>(afterSql, [after?.versionId ?? '', after?.action ?? '', limit]);
      return rows.map(scheduleOf);
    },

    async restore({ versionId, action, type, docId, locale, dueAt, by, status, attempts, unreviewedChange }) {
      await statements.prepared(restoreSql, [versionId, action, type, docId, locale, dueAt, by, status, attempts, unreviewedChange]);
    },

    async setUnreviewedChange({ versionId, action }, change) {
      const { rowCount } = await statements.prepared(unreviewedSql, [versionId, action, change]);
      return rowCount === 1;
    },
  };
}
