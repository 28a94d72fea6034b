import type { StoredPreferences } from './interface/preferences.js';

/** A row of `user_preferences`, in both stores. */
export interface PreferencesRow {
  user_id: string;
  json: string;
  updated_at: string;
}

export function preferencesOf(row: PreferencesRow): StoredPreferences {
  return { userId: row.user_id, json: row.json, updatedAt: row.updated_at };
}

/** A second save replaces the row (both stores speak this upsert). */
export const preferencesUpsert = 'ON CONFLICT (user_id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at';
