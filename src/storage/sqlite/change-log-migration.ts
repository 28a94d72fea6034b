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
