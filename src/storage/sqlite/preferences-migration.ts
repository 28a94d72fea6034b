/** Each user's admin preferences (storage/interface/preferences.ts): one row per user who saved any. */
export const preferencesMigration = `
  CREATE TABLE user_preferences (
    user_id TEXT PRIMARY KEY,
    json TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;
`;
