import type { HistoryStore } from '../interface/history.js';
import type { StatementSource } from './statements.js';
import { historyEntryColumns, historyEntryOf, sequencedHistoryEntryOf, historyHeadColumns, historyHeadOf, historyInsertColumns, historyInsertValues, historyOrder, historySummaryColumns, historySummaryOf, type HistoryRow } from '../history-rows.js';

const scope = 'doc_id = $1::text AND locale = $2::text AND type = $3::text';
const appendSql = `INSERT INTO document_history (${historyInsertColumns})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::bigint, $10::json, $11::json, $12::text)`;
const latestSql = `SELECT ${historyHeadColumns} FROM document_history WHERE ${scope} ${historyOrder} LIMIT 1`;
const mergeSql = `UPDATE document_history SET created_at = $5::bigint, updated_by = $6::json, data = $7::json WHERE id = $4::text AND ${scope}`;
const listSql = `SELECT ${historySummaryColumns}, count(*) OVER () AS total FROM document_history WHERE ${scope} ${historyOrder} LIMIT $4::int OFFSET $5::bigint`;
// Newest first, after the bound: its createdAt, then the entries of that millisecond saved before
// it (by seq; none when it is gone). Counted apart: the window would count the bounded rows only.
const listAfterSql = `SELECT ${historySummaryColumns} FROM document_history WHERE ${scope}
  AND (created_at, seq) < ($6::bigint, (SELECT seq FROM document_history WHERE id = $7::text AND ${scope})) ${historyOrder} LIMIT $4::int OFFSET $5::bigint`;
const countSql = `SELECT count(*)::int AS total FROM document_history WHERE ${scope}`;
const getSql = `SELECT ${historyEntryColumns} FROM document_history WHERE id = $4::text AND ${scope}`;
// Two statements, each a range of an index (one with an OR would read every entry of the scope):
// the old entries, on (doc_id, locale, created_at, seq); those of the pool past its newest `keep`,
// on (doc_id, locale, type, pool, created_at, seq), past `keep` of its entries.
const pruneAgedSql = `DELETE FROM document_history WHERE ${scope} AND created_at < $4::bigint`;
const prunePoolSql = `DELETE FROM document_history WHERE seq IN (
  SELECT seq FROM document_history WHERE ${scope} AND pool = $4::text ${historyOrder} OFFSET $5::int)`;
const entriesAfterSql = `SELECT seq, ${historyEntryColumns} FROM document_history WHERE seq > $1::bigint ORDER BY seq LIMIT $2::int`;
const removeSql = 'DELETE FROM document_history WHERE doc_id = $1::text AND type = $2::text AND locale = ANY($3::text[])';

/** The document_history table, read and written through the given statements. */
export function createPostgresHistoryStore(statements: StatementSource): HistoryStore {
  const keys = (s: { type: string; docId: string; locale: string }) => [s.docId, s.locale, s.type];
  return {
    async append(entry) {
      await statements.prepared(appendSql, historyInsertValues(entry));
    },

    async latest(s) {
      const { rows } = await statements.prepared<HistoryRow>(latestSql, keys(s));
      return rows[0] ? historyHeadOf(rows[0]) : null;
    },

    async merge(s, id, change) {
      await statements.prepared(mergeSql, [...keys(s), id, change.createdAt, JSON.stringify(change.updatedBy), JSON.stringify(change.data)]);
    },

    async list(s, page) {
      if (page.after !== undefined) {
        const { rows } = await statements.prepared<HistoryRow>(listAfterSql, [...keys(s), page.limit, page.skip, page.after.createdAt, page.after.id]);
        const { total } = (await statements.prepared<{ total: number }>(countSql, keys(s))).rows[0]!;
        return { total, entries: rows.map(historySummaryOf) };
      }
      const { rows } = await statements.prepared<HistoryRow & { total: string }>(listSql, [...keys(s), page.limit, page.skip]);
      // A page past the end has no row to carry the count.
      const total = rows[0] ? Number(rows[0].total) : (await statements.prepared<{ total: number }>(countSql, keys(s))).rows[0]!.total;
      return { total, entries: rows.map(historySummaryOf) };
    },

    async get(s, id) {
      const { rows } = await statements.prepared<HistoryRow>(getSql, [...keys(s), id]);
      return rows[0] ? historyEntryOf(rows[0]) : null;
    },

    async prune(s, rule) {
      await statements.prepared(pruneAgedSql, [...keys(s), rule.before]);
      await statements.prepared(prunePoolSql, [...keys(s), rule.pool, rule.keep]);
    },

    async removeDocument(type, docId, locales) {
      if (locales.length > 0) await statements.prepared(removeSql, [docId, type, [...locales]]);
    },

    async entriesAfter(afterSeq, limit) {
      const { rows } = await statements.prepared<HistoryRow & { seq: string }>(entriesAfterSql, [afterSeq, limit]);
      return rows.map(sequencedHistoryEntryOf);
    },
  };
}
