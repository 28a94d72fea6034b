/**
 * The change log (storage/interface/change-log.ts): one row per change to a document version,
 * appended in the change's transaction. SQLite has one writer at a time, so `seq` is the order of
 * commits; `at` serves pruning by age.
 */
export const changeLogMigration = `
  CREATE TABLE change_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    type TEXT NOT NULL,
    id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    locale TEXT,
    mode TEXT,
    visibility TEXT NOT NULL,
    archived INTEGER NOT NULL,
    updated_at TEXT,
    updated_by TEXT
  ) STRICT;
  CREATE INDEX change_log_at ON change_log (at);
`;

/**
 * What the sync API needs of the log: a version's visibility before the change (who may be told
 * it left their view), the greatest seq pruning removed (no token before it holds), and the secret that signs sync tokens, made here once for every process
 * on the store (randomblob reads SQLite's cryptographic source).
 */
export const changeLogSyncMigration = `
  ALTER TABLE change_log ADD COLUMN visibility_before TEXT;
  CREATE TABLE change_log_pruned (seq INTEGER NOT NULL);
  INSERT INTO change_log_pruned (seq) VALUES (0);
  CREATE TABLE signing_keys (purpose TEXT PRIMARY KEY, secret TEXT NOT NULL) STRICT;
  INSERT INTO signing_keys (purpose, secret) VALUES ('change-log', lower(hex(randomblob(32))));
`;
