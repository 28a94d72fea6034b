import type { AuditStore } from '../storage-adapter.js';
import { auditColumns, auditConditions, auditInsertColumns, auditRecordOf, auditRowValues, type AuditRow } from '../audit-rows.js';
import type { StatementSource } from './statements.js';

const insertSql = `INSERT INTO audit_records (${auditInsertColumns})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text)`;
const afterSql = `SELECT ${auditColumns} FROM audit_records WHERE seq > $1::bigint ORDER BY seq LIMIT $2::int`;
// By the time index: when nothing is old enough, one index probe.
const pruneByAgeSql = 'DELETE FROM audit_records WHERE seq IN (SELECT seq FROM audit_records WHERE at < $1::text ORDER BY at LIMIT $2::int)';
// The newest `keep` stay: everything at or below the seq `keep` places from the top goes.
const pruneByCountSql = `DELETE FROM audit_records WHERE seq IN (
  SELECT seq FROM audit_records WHERE seq <= (SELECT seq FROM audit_records ORDER BY seq DESC LIMIT 1 OFFSET $1::int) ORDER BY seq LIMIT $2::int)`;
const placeholder = (n: number) => `$${n}::text`;

/** The audit_records table, read and written through the given statements. */
export function createPostgresAuditStore(statements: StatementSource): AuditStore {
  return {
    async append(records) {
      for (const record of records) await statements.prepared(insertSql, auditRowValues(record));
    },

    // The offset is a bigint: a page far past the end (page × perPage beyond 2^31) finds nothing, as on SQLite.
    async list(query, { offset, limit, after }) {
      const { where, values } = auditConditions(query, placeholder, after);
      const n = values.length;
      const sql = `SELECT ${auditColumns} FROM audit_records ${where} ORDER BY seq DESC LIMIT $${n + 1}::int OFFSET $${n + 2}::bigint`;
      const { rows } = await statements.prepared<AuditRow>(sql, [...values, limit, offset]);
      return rows.map(auditRecordOf);
    },

    async count(query) {
      const { where, values } = auditConditions(query, placeholder);
      const { rows } = await statements.prepared<{ count: string }>(`SELECT count(*) AS count FROM audit_records ${where}`, values);
      return Number(rows[0]!.count);
    },

    async after(afterSeq, limit) {
      const { rows } = await statements.prepared<AuditRow>(afterSql, [afterSeq, limit]);
      return rows.map((row) => ({ seq: Number(row.seq), record: auditRecordOf(row) }));
    },

    async prune({ before, keep, limit }) {
      let removed = 0;
      if (before !== null) removed += (await statements.prepared(pruneByAgeSql, [before, limit])).rowCount ?? 0;
      if (keep !== null && removed < limit) removed += (await statements.prepared(pruneByCountSql, [keep, limit - removed])).rowCount ?? 0;
      return removed;
    },
  };
}
