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

/**
 * What the sync API needs of the log: a version's visibility before the change (who may be told
 * it left their view), the greatest seq pruning removed (no token before it holds), and the table
 * of the secret that signs sync tokens. The secret is made by the first process that needs it
 * (postgres-change-log.ts), from Node's cryptographic source: PostgreSQL 12 has no
 * gen_random_uuid() without pgcrypto.
 */
export const changeLogSyncMigration = `
  ALTER TABLE change_log ADD COLUMN visibility_before text;
  CREATE TABLE change_log_pruned (seq bigint NOT NULL);
  INSERT INTO change_log_pruned (seq) VALUES (0);
  CREATE TABLE signing_keys (purpose text PRIMARY KEY, secret text NOT NULL);
`;
