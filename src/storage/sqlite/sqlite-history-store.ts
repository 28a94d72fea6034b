import type { HistoryStore } from '../interface/history.js';
import type { StatementSource } from './statement-cache.js';
import { historyEntryColumns, historyEntryOf, sequencedHistoryEntryOf, historyHeadColumns, historyHeadOf, historyInsertColumns, historyInsertValues, historyOrder, historySummaryColumns, historySummaryOf, type HistoryRow } from '../history-rows.js';

const scope = 'doc_id = ? AND locale = ? AND type = ?';
const appendSql = `INSERT INTO document_history (${historyInsertColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const latestSql = `SELECT ${historyHeadColumns} FROM document_history WHERE ${scope} ${historyOrder} LIMIT 1`;
const mergeSql = `UPDATE document_history SET created_at = ?, updated_by = ?, data = ? WHERE id = ? AND ${scope}`;
const listSql = `SELECT ${historySummaryColumns} FROM document_history WHERE ${scope} ${historyOrder} LIMIT ? OFFSET ?`;
// Newest first, after the bound: its createdAt, then the entries of that millisecond saved before
// it (by seq; none when it is gone).
const listAfterSql = `SELECT ${historySummaryColumns} FROM document_history WHERE ${scope}
  AND (created_at, seq) < (?, (SELECT seq FROM document_history WHERE id = ? AND ${scope})) ${historyOrder} LIMIT ? OFFSET ?`;
const countSql = `SELECT count(*) AS total FROM document_history WHERE ${scope}`;
const getSql = `SELECT ${historyEntryColumns} FROM document_history WHERE id = ? AND ${scope}`;
// Two statements, each a range of an index (one with an OR would read every entry of the scope):
// the old entries, on (doc_id, locale, created_at); those of the pool past its newest `keep`, on
// (doc_id, locale, type, pool, created_at), past `keep` of its entries, then by rowid.
const pruneAgedSql = `DELETE FROM document_history WHERE ${scope} AND created_at < ?`;
const prunePoolSql = `DELETE FROM document_history WHERE seq IN (
  SELECT seq FROM document_history WHERE ${scope} AND pool = ? ${historyOrder} LIMIT -1 OFFSET ?)`;
const entriesAfterSql = `SELECT seq, ${historyEntryColumns} FROM document_history WHERE seq > ? ORDER BY seq LIMIT ?`;
const removeSql = 'DELETE FROM document_history WHERE doc_id = ? AND type = ? AND locale IN (SELECT value FROM json_each(?))';

/** The document_history table, read and written through the given connection's statements. */
export function createSqliteHistoryStore(statements: StatementSource): HistoryStore {
  const keys = (s: { type: string; docId: string; locale: string }) => [s.docId, s.locale, s.type];
  return {
    async append(entry) {
      statements.statement(appendSql).run(...historyInsertValues(entry));
    },

    async latest(s) {
      const row = statements.statement(latestSql).get(...keys(s)) as HistoryRow | undefined;
      return row ? historyHeadOf(row) : null;
    },

    async merge(s, id, change) {
      statements.statement(mergeSql).run(change.createdAt, JSON.stringify(change.updatedBy), JSON.stringify(change.data), id, ...keys(s));
    },

    async list(s, page) {
      const { after } = page;
      const rows = (after === undefined
        ? statements.statement(listSql).all(...keys(s), page.limit, page.skip)
        : statements.statement(listAfterSql).all(...keys(s), after.createdAt, after.id, ...keys(s), page.limit, page.skip)) as HistoryRow[];
      const { total } = statements.statement(countSql).get(...keys(s)) as { total: number };
      return { total, entries: rows.map(historySummaryOf) };
    },

    async get(s, id) {
      const row = statements.statement(getSql).get(id, ...keys(s)) as HistoryRow | undefined;
      return row ? historyEntryOf(row) : null;
    },

    async prune(s, rule) {
      statements.statement(pruneAgedSql).run(...keys(s), rule.before);
      statements.statement(prunePoolSql).run(...keys(s), rule.pool, rule.keep);
    },

    async removeDocument(type, docId, locales) {
      if (locales.length > 0) statements.statement(removeSql).run(docId, type, JSON.stringify(locales));
    },

    async entriesAfter(afterSeq, limit) {
      const rows = statements.statement(entriesAfterSql).all(afterSeq, limit) as (HistoryRow & { seq: number })[];
      return rows.map(sequencedHistoryEntryOf);
    },
  };
}
