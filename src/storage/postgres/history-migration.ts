/**
 * Document history (issue 25): an entry per saved change of a version, with the content it left,
 * listed per document and locale newest first (the index), pruned per document by count and age.
 * `seq` orders the entries of one millisecond. Kept in a file of its own: its place in
 * `migrations` is set at merge.
 */
export const historyMigration = `
  CREATE TABLE document_history (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    type text COLLATE "C" NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    locale text COLLATE "C" NOT NULL,
    version_id text COLLATE "C" NOT NULL,
    mode text NOT NULL,
    action text NOT NULL,
    created_at bigint NOT NULL,
    started_at bigint NOT NULL,
    updated_by json NOT NULL,
    data json NOT NULL
  );
  CREATE INDEX document_history_doc ON document_history (doc_id, locale, created_at, seq);
  `;
