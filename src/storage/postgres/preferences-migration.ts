/** Each user's admin preferences (storage/interface/preferences.ts): one row per user who saved any. */
export const preferencesMigration = `
  CREATE TABLE user_preferences (
    user_id text PRIMARY KEY,
    json text NOT NULL,
    updated_at text NOT NULL
  );
`;
