import type { PresenceStore } from '../interface/presence.js';
import type { StatementSource } from './statements.js';
import { presenceColumns, presenceEntryOf, presenceUpsert, presenceValues, type PresenceCountRow as CountRow, type PresenceRow } from '../presence-rows.js';

const announceSql = `INSERT INTO presence (${presenceColumns})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::bigint) ${presenceUpsert}`;
const leaveSql = 'DELETE FROM presence WHERE user_id = $1::text AND tab_id = $2::text';
const presentSql = `SELECT ${presenceColumns} FROM presence WHERE expires_at > $1::bigint LIMIT $2::int`;
const presentOnSql = `SELECT ${presenceColumns} FROM presence
  WHERE type = $1::text AND doc_id = $2::text AND locale = $3::text AND expires_at > $4::bigint`;
const countSql = `SELECT (count(*) FILTER (WHERE user_id = $1::text))::int AS mine, count(*)::int AS "all",
  (count(*) FILTER (WHERE user_id = $1::text AND tab_id = $2::text))::int AS tab FROM presence WHERE expires_at > $3::bigint`;
const pruneSql = 'DELETE FROM presence WHERE expires_at <= $1::bigint';

/** The presence table, read and written through the given statements. */
export function createPostgresPresenceStore(statements: StatementSource): PresenceStore {
  return {
    async announce(entry) {
      await statements.prepared(announceSql, presenceValues(entry));
    },
    async leave(userId, tabId) {
      await statements.prepared(leaveSql, [userId, tabId]);
    },
    async presentOn(type, docId, locale, now) {
      const { rows } = await statements.prepared<PresenceRow>(presentOnSql, [type, docId, locale, now]);
      return rows.map(presenceEntryOf);
    },
    async present(now, limit) {
      const { rows } = await statements.prepared<PresenceRow>(presentSql, [now, limit]);
      return rows.map(presenceEntryOf);
    },
    async counts(userId, tabId, now) {
      const { rows } = await statements.prepared<CountRow>(countSql, [userId, tabId, now]);
      const row = rows[0]!;
      return { mine: row.mine, all: row.all, tabKnown: row.tab > 0 };
    },
    async prune(now) {
      await statements.prepared(pruneSql, [now]);
    },
  };
}
