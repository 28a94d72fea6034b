import type { PreferencesStore } from '../interface/preferences.js';
import type { StatementSource } from './statements.js';
import { preferencesOf, preferencesUpsert, type PreferencesRow } from '../preferences-rows.js';

const getSql = 'SELECT user_id, json, updated_at FROM user_preferences WHERE user_id = $1::text';
const putSql = `INSERT INTO user_preferences (user_id, json, updated_at) VALUES ($1::text, $2::text, $3::text) ${preferencesUpsert}`;
const removeSql = 'DELETE FROM user_preferences WHERE user_id = $1::text';

/** The user_preferences table, read and written through the given statements. */
export function createPostgresPreferencesStore(statements: StatementSource): PreferencesStore {
  return {
    async get(userId) {
      const { rows } = await statements.prepared<PreferencesRow>(getSql, [userId]);
      return rows[0] === undefined ? null : preferencesOf(rows[0]);
    },
    async put(preferences) {
      await statements.prepared(putSql, [preferences.userId, preferences.json, preferences.updatedAt]);
    },
    async remove(userId) {
      await statements.prepared(removeSql, [userId]);
    },
  };
}
