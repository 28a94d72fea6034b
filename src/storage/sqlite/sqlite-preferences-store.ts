import type { PreferencesStore } from '../interface/preferences.js';
import type { StatementSource } from './statement-cache.js';
import { preferencesOf, preferencesUpsert, type PreferencesRow } from '../preferences-rows.js';

const getSql = 'SELECT user_id, json, updated_at FROM user_preferences WHERE user_id = ?';
const putSql = `INSERT INTO user_preferences (user_id, json, updated_at) VALUES (?, ?, ?) ${preferencesUpsert}`;
const removeSql = 'DELETE FROM user_preferences WHERE user_id = ?';

/** The user_preferences table, read and written through the given connection's statements. */
export function createSqlitePreferencesStore(statements: StatementSource): PreferencesStore {
  return {
    async get(userId) {
      const row = statements.statement(getSql).get(userId) as PreferencesRow | undefined;
      return row === undefined ? null : preferencesOf(row);
    },
    async put(preferences) {
      statements.statement(putSql).run(preferences.userId, preferences.json, preferences.updatedAt);
    },
    async remove(userId) {
      statements.statement(removeSql).run(userId);
    },
  };
}
