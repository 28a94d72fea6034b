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

/**
 * History retention by pool (issue 33): each entry counts against one share of its document's
 * history, and pruning by count removes the oldest of the new entry's share only, so no writer
 * pushes out the entries of another share. The entries there are already: the oldest of each
 * document and locale is its first entry, and the others count as an admin's (their author's
 * role was not kept), publishes apart: no lower role's saves push them out.
 */
export const historyPoolsMigration = `
  ALTER TABLE document_history ADD COLUMN pool TEXT NOT NULL DEFAULT 'change:admin';
  UPDATE document_history SET pool = 'publish:admin' WHERE action = 'publish';
  UPDATE document_history SET pool = 'first' WHERE seq IN (SELECT min(seq) FROM document_history GROUP BY doc_id, locale, type);
  CREATE INDEX document_history_pool ON document_history (doc_id, locale, type, pool, created_at);
  `;
