import type { ChangeLogStore } from '../storage-adapter.js';
import { changeLogColumns, changeLogInsertColumns, changeLogRowValues, loggedChangeOf, type ChangeLogRow } from '../change-log-rows.js';
import type { StatementSource } from './statement-cache.js';

const insertSql = `INSERT INTO change_log (${changeLogInsertColumns}) VALUES (${new Array(12).fill('?').join(', ')})`;
const afterSql = `SELECT ${changeLogColumns} FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?`;
// sqlite_sequence keeps the last seq given even once its row is pruned.
const boundsSql = `SELECT (SELECT min(seq) FROM change_log) AS oldest, coalesce((SELECT max(seq) FROM change_log),
  (SELECT seq FROM sqlite_sequence WHERE name = 'change_log'), 0) AS latest`;
const signingKeySql = "SELECT secret FROM signing_keys WHERE purpose = 'change-log'";
const prunedSelection = 'SELECT seq FROM change_log WHERE at < ? ORDER BY at LIMIT ?';
const pruneSql = `DELETE FROM change_log WHERE seq IN (${prunedSelection})`;
const notePrunedSql = `UPDATE change_log_pruned SET seq = max(seq, coalesce((SELECT max(seq) FROM (${prunedSelection})), 0))`;
const prunedThroughSql = 'SELECT seq FROM change_log_pruned';

/** The change_log table, read and written through the given connection's statements. */
export function createSqliteChangeLog(statements: StatementSource): ChangeLogStore {
  return {
    async append(entries) {
      const insert = statements.statement(insertSql);
      for (const entry of entries) insert.run(...changeLogRowValues(entry, (archived) => (archived ? 1 : 0)));
    },
    async after(afterSeq, limit) {
      return (statements.statement(afterSql).all(afterSeq, limit) as ChangeLogRow[]).map(loggedChangeOf);
    },
    async bounds() {
      const row = statements.statement(boundsSql).get() as { oldest: number | null; latest: number };
      return { oldest: row.oldest, latest: Number(row.latest) };
    },
    async prune(before, limit) {
      // The watermark first, of the very rows the delete takes (the same selection, in the same transaction).
      statements.statement(notePrunedSql).run(before, limit);
      return statements.statement(pruneSql).run(before, limit).changes;
    },
    async prunedThrough() {
      return Number((statements.statement(prunedThroughSql).get() as { seq: number }).seq);
    },
    async signingKey() {
      return (statements.statement(signingKeySql).get() as { secret: string }).secret;
    },
  };
}
