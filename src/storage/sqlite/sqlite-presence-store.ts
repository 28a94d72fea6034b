import type { PresenceStore } from '../interface/presence.js';
import type { StatementSource } from './statement-cache.js';
import { presenceColumns, presenceEntryOf, presenceUpsert, presenceValues, type PresenceCountRow as CountRow, type PresenceRow } from '../presence-rows.js';

const announceSql = `INSERT INTO presence (${presenceColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${presenceUpsert}`;
const leaveSql = 'DELETE FROM presence WHERE user_id = ? AND tab_id = ?';
const presentSql = `SELECT ${presenceColumns} FROM presence WHERE expires_at > ? LIMIT ?`;
const presentOnSql = `SELECT ${presenceColumns} FROM presence WHERE type = ? AND doc_id = ? AND locale = ? AND expires_at > ?`;
const countSql = `SELECT count(*) FILTER (WHERE user_id = ?) AS mine, count(*) AS "all",
  count(*) FILTER (WHERE user_id = ? AND tab_id = ?) AS tab FROM presence WHERE expires_at > ?`;
const pruneSql = 'DELETE FROM presence WHERE expires_at <= ?';

/** The presence table, read and written through the given connection's statements. */
export function createSqlitePresenceStore(statements: StatementSource): PresenceStore {
  return {
    async announce(entry) {
      statements.statement(announceSql).run(...presenceValues(entry));
    },
    async leave(userId, tabId) {
      statements.statement(leaveSql).run(userId, tabId);
    },
    async presentOn(type, docId, locale, now) {
      return (statements.statement(presentOnSql).all(type, docId, locale, now) as PresenceRow[]).map(presenceEntryOf);
    },
    async present(now, limit) {
      return (statements.statement(presentSql).all(now, limit) as PresenceRow[]).map(presenceEntryOf);
    },
    async counts(userId, tabId, now) {
      const row = statements.statement(countSql).get(userId, userId, tabId, now) as CountRow;
      return { mine: row.mine, all: row.all, tabKnown: row.tab > 0 };
    },
    async prune(now) {
      statements.statement(pruneSql).run(now);
    },
  };
}
