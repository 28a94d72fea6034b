/**
 * What protects an account besides its password (`AccountSecurityStore`): one TOTP secret per
 * user, and the digests of one-time codes (recovery codes, password reset tokens, TOTP setup
 * tokens), each taken once, found by digest and counted per user and purpose.
 */
export const accountSecurityMigration = `
  CREATE TABLE account_totp (
    user_id TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    enabled_at TEXT,
    last_step INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE account_codes (
    digest TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    purpose TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    used_at TEXT
  ) STRICT;
  CREATE INDEX account_codes_user ON account_codes (user_id, purpose);
`;
