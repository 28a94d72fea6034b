/**
 * Document history (issue 25): an entry per saved change of a version, with the content it left,
 * listed per document and locale newest first (the index), pruned per document by count and age.
 * `seq` orders the entries of one millisecond. Kept in a file of its own: its place in
 * `migrations` is set at merge.
 */
export const historyMigration = `
  CREATE TABLE document_history (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    locale TEXT NOT NULL,
    version_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    action TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL,
    data TEXT NOT NULL
  ) STRICT;
  CREATE INDEX document_history_doc ON document_history (doc_id, locale, created_at);
  `;
