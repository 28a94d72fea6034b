import type { AuditStore } from '../storage-adapter.js';
import { auditColumns, auditConditions, auditInsertColumns, auditRecordOf, auditRowValues, type AuditRow } from '../audit-rows.js';
import type { StatementSource } from './statement-cache.js';

const insertSql = `INSERT INTO audit_records (${auditInsertColumns}) VALUES (${new Array(13).fill('?').join(', ')})`;
const afterSql = `SELECT ${auditColumns} FROM audit_records WHERE seq > ? ORDER BY seq LIMIT ?`;
// By the time index: when nothing is old enough, one index probe.
const pruneByAgeSql = 'DELETE FROM audit_records WHERE seq IN (SELECT seq FROM audit_records WHERE at < ? ORDER BY at LIMIT ?)';
// The newest `keep` stay: everything at or below the seq `keep` places from the top goes.
const pruneByCountSql = `DELETE FROM audit_records WHERE seq IN (
  SELECT seq FROM audit_records WHERE seq <= (SELECT seq FROM audit_records ORDER BY seq DESC LIMIT 1 OFFSET ?) ORDER BY seq LIMIT ?)`;
const placeholder = () => '?';

/** The audit_records table, read and written through the given connection's statements. */
export function createSqliteAuditStore(statements: StatementSource): AuditStore {
  return {
    async append(records) {
      const insert = statements.statement(insertSql);
      for (const record of records) insert.run(...auditRowValues(record));
    },

    async list(query, { offset, limit, after }) {
      const { where, values } = auditConditions(query, placeholder, after);
      const sql = `SELECT ${auditColumns} FROM audit_records ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`;
      return (statements.statement(sql).all(...values, limit, offset) as AuditRow[]).map(auditRecordOf);
    },

    async count(query) {
      const { where, values } = auditConditions(query, placeholder);
      const row = statements.statement(`SELECT count(*) AS count FROM audit_records ${where}`).get(...values) as { count: number };
      return row.count;
    },

    async after(afterSeq, limit) {
      const rows = statements.statement(afterSql).all(afterSeq, limit) as AuditRow[];
      return rows.map((row) => ({ seq: Number(row.seq), record: auditRecordOf(row) }));
    },

    async prune({ before, keep, limit }) {
      let removed = 0;
      if (before !== null) removed += statements.statement(pruneByAgeSql).run(before, limit).changes;
      if (keep !== null && removed < limit) removed += statements.statement(pruneByCountSql).run(keep, limit - removed).changes;
      return removed;
    },
  };
}
