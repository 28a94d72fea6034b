/**
 * The change log (storage/interface/change-log.ts): one row per change to a document version.
 * Writers commit side by side, so a row's `seq` is taken at its transaction's commit, under a
 * transaction lock of the log (postgres-change-log.ts): seq order is commit order.
 */
export const changeLogMigration = `
  CREATE TABLE change_log (
    seq bigserial PRIMARY KEY,
    at text COLLATE "C" NOT NULL,
    action text NOT NULL,
    type text NOT NULL,
    id text NOT NULL,
    doc_id text NOT NULL,
    locale text,
    mode text,
    visibility text NOT NULL,
    archived boolean NOT NULL,
    updated_at text,
    updated_by text
  );
  CREATE INDEX change_log_at ON change_log (at);
`;
