import type { DocumentQuery, IndexValue } from '../interface/document-query.js';
import type { DocumentIndex, DocumentStore, StoredDocument } from '../interface/documents.js';
import type { ValuePartition } from './sqlite-conditions.js';
import { compileCountQuery, compileDistinctValuesQuery, compileHeldValuesQuery, compileFindQuery, jsonList } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';
import { assertDocumentIndex, removeIndex, replaceIndex, writeIndex, type PendingSearchWrites } from './sqlite-document-index.js';
import { translateSqliteError } from './translate-error.js';
import { fillReverseIds, splitReverseIds } from '../reverse-ids.js';
import { heldValuesKeyByKey } from '../held-values.js';

const columnValues = `@id, @docId, @type, @locale, @mode, @slug, @archived, @visibility, @titleSortified,
  @createdAt, @updatedAt, @data`;

const insertSql = `INSERT INTO documents (id, doc_id, type, locale, mode, slug, archived, visibility,
  title_sortified, created_at, updated_at, data) VALUES (${columnValues})`;

// Only a version of the document's own type: an id never reaches another type's document.
// (A unary `+` keeps the type out of index selection: the id index finds the row.)
const updateSql = `UPDATE documents SET doc_id = @docId, locale = @locale, mode = @mode,
  slug = @slug, archived = @archived, visibility = @visibility, title_sortified = @titleSortified,
  created_at = @createdAt, updated_at = @updatedAt, data = @data WHERE id = @id AND +type = @type RETURNING seq`;
// Without an index: the version stays where it is (locale and mode), its values and texts too.
const updateRowSql = `UPDATE documents SET doc_id = @docId,
  slug = @slug, archived = @archived, visibility = @visibility, title_sortified = @titleSortified,
  created_at = @createdAt, updated_at = @updatedAt, data = @data WHERE id = @id AND +type = @type RETURNING seq`;

// The foreign key would remove the values with the document; removeIndex does it anyway, and
// the search rows, which a foreign key cannot reach.
const removeSql = 'DELETE FROM documents WHERE +type = ? AND id IN (SELECT value FROM json_each(?)) RETURNING seq';

// One range of the slug index, from "<base>" to "<base>." ('.' follows '-'; the column compares
// bytes): it holds "<base>" and every "<base>-...", and only the slugs between them besides, so the
// cost follows the slugs that share the base, never the locale's size. An OR of the exact slug and
// the range would make SQLite walk every slug of the locale and mode instead. Exact, where LIKE
// ignores ASCII case, and free of LIKE's 50,000-byte pattern limit, which a long title passes.
const slugsLikeSql = `SELECT slug FROM documents
  WHERE locale = @locale AND mode = @mode AND slug >= @base AND slug < @base || '.'
    AND (slug = @base OR slug >= @base || '-')
    AND (@exceptDocId IS NULL OR doc_id <> @exceptDocId)
  ORDER BY slug`;

// The versions' reverse ids (see reverse-ids.ts), each version's as one JSON array in the order
// added: read along its (target_id, seq) key, no sort, no row object per id.
const reverseIdsSql = `SELECT targets.value AS target_id, (SELECT json_group_array(source_doc_id) FROM (
    SELECT source_doc_id FROM document_reverse_ids WHERE target_id = targets.value ORDER BY seq)) AS ids
  FROM json_each(?) AS targets`;
const keepReverseIdsSql = `DELETE FROM document_reverse_ids
  WHERE target_id = ? AND source_doc_id NOT IN (SELECT value FROM json_each(?))`;
// Appended after the version's last (the select is read whole before the rows go in).
const nextSeq = (target: string) => `coalesce((SELECT max(seq) FROM document_reverse_ids WHERE target_id = ${target}), 0) + 1`;
const addReverseIdsSql = `INSERT OR IGNORE INTO document_reverse_ids (target_id, seq, source_doc_id)
  SELECT @target, ${nextSeq('@target')} + key, value FROM json_each(@ids)`;
const dropReverseIdsSql = `DELETE FROM document_reverse_ids WHERE target_id IN (SELECT value FROM json_each(?))
  AND NOT EXISTS (SELECT 1 FROM documents WHERE documents.id = document_reverse_ids.target_id)`;
const relateSql = `INSERT OR IGNORE INTO document_reverse_ids (target_id, seq, source_doc_id)
  SELECT id, ${nextSeq('@id')}, @source FROM documents WHERE id = @id AND +type = @type`;
const unrelateSql = 'DELETE FROM document_reverse_ids WHERE target_id = @id AND source_doc_id = @source';
// The version's cacheInvalidatedAt moved, and it marked as named when it gains the id, in place:
// its data no longer holds the ids, so this writes a row of fixed size.
const stamped = `json_set(data, '$.cacheInvalidatedAt', CASE WHEN json_extract(data, '$.cacheInvalidatedAt') > @stamp
  THEN json_extract(data, '$.cacheInvalidatedAt') ELSE @stamp END)`;
const stampSql = `UPDATE documents SET data = CASE WHEN @present THEN json_set(${stamped}, '$.relatedReverseIds', json('[]'))
  ELSE ${stamped} END WHERE id = @id AND +type = @type`;

const versionsAfterSql = `SELECT data FROM documents WHERE type = ? AND id > ? ORDER BY id LIMIT ?`;
const allVersionsAfterSql = `SELECT data FROM documents WHERE id > ? ORDER BY id LIMIT ?`;

/**
 * The documents table, read and written through the given connection's statements; the search
 * texts of writes go to `pendingSearch` when given (a write transaction's, see PendingSearchWrites).
 */
export function createSqliteDocumentStore(statements: StatementSource, pendingSearch?: PendingSearchWrites): DocumentStore {
  // A search reads the full-text tables: the texts this transaction wrote go there first.
  const beforeRead = (query: DocumentQuery) => {
    if (query.search) pendingSearch?.flush(statements);
  };
  const heldValues = async (query: DocumentQuery, key: string) => {
    beforeRead(query);
    const { sql, params } = compileHeldValuesQuery(query, key) ?? compileDistinctValuesQuery(query, key);
    return statements.statement(sql).pluck().all(...params) as IndexValue[];
  };
  return {
    async find(query: DocumentQuery) {
      beforeRead(query);
      const { sql, params } = compileFindQuery(query);
      const rows = statements.statement(sql).pluck().all(...params) as string[];
      return withReverseIds(statements, rows, query.reverseIds);
    },

    async count(query: DocumentQuery) {
      beforeRead(query);
      const { sql, params } = compileCountQuery(query);
      return statements.statement(sql).pluck().get(...params) as number;
    },

    async distinctValues(query: DocumentQuery, key: string) {
      beforeRead(query);
      const { sql, params } = compileDistinctValuesQuery(query, key);
      return statements.statement(sql).all(...params) as { value: IndexValue; count: number }[];
    },

    heldValues,
    // In a transaction nothing is counted first: each key's values are read as heldValues reads them.
    heldValuesOfKeys: (query, keys) => heldValuesKeyByKey({ heldValues }, query, keys),

    // A write touches documents, document_values and both search tables. Outside a transaction
    // the adapter runs it in one of its own. Inside one, it must not leave half a write behind
    // when it fails (a slug conflict the caller goes on from, say), yet a savepoint per write
    // would make FTS5 flush its pending terms to disk each time, one index segment per document.
    // So everything that input can make fail comes first: the index is checked, then the
    // documents row (a failing statement undoes itself); what follows cannot fail on input.

    async insert(doc, index) {
      assertDocumentIndex(index);
      const { stored, ids } = splitReverseIds(doc);
      const row = { ...toRow(stored), ...placeOf(index) };
      const { lastInsertRowid } = runTranslatingErrors(() => statements.statement(insertSql).run(row));
      writeIndex(statements, Number(lastInsertRowid), partitionOf(row), index, pendingSearch);
      // A new version has no rows yet (a removed one's went with it).
      if (ids !== null && ids.length > 0) keepReverseIds(statements, doc._id, ids);
    },

    async update(doc, index) {
      const { stored, ids } = splitReverseIds(doc);
      if (!index) {
        const updated = runTranslatingErrors(() => statements.statement(updateRowSql).get(toRow(stored))) !== undefined;
        if (updated) keepReverseIds(statements, doc._id, ids);
        return updated;
      }
      assertDocumentIndex(index);
      const row = { ...toRow(stored), ...placeOf(index) };
      const updated = runTranslatingErrors(() => statements.statement(updateSql).get(row));
      if (updated === undefined) return false;
      const { seq } = updated as { seq: number };
      replaceIndex(statements, seq, partitionOf(row), index, pendingSearch);
      keepReverseIds(statements, doc._id, ids);
      return true;
    },

    async relateBack(type, sourceDocId, changes, stamp) {
      for (const { versionId, present } of changes) {
        const params = { id: versionId, type, source: sourceDocId };
        statements.statement(present ? relateSql : unrelateSql).run(present ? params : { id: versionId, source: sourceDocId });
        statements.statement(stampSql).run({ id: versionId, type, stamp, present: present ? 1 : 0 });
      }
    },

    async remove(type, ids) {
      if (ids.length === 0) return 0;
      const seqs = statements.statement(removeSql).pluck().all(type, jsonList(ids)) as number[];
      removeIndex(statements, seqs, pendingSearch);
      if (seqs.length > 0) statements.statement(dropReverseIdsSql).run(jsonList(ids));
      return seqs.length;
    },

    async slugsLike({ locale, mode, base, exceptDocId }) {
      return statements.statement(slugsLikeSql).pluck().all({
        locale: locale ?? '',
        mode: mode ?? '',
        base,
        exceptDocId: exceptDocId ?? null,
      }) as string[];
    },

    async versionsAfter(type, afterId, limit) {
      const rows = (
        type === null
          ? statements.statement(allVersionsAfterSql).pluck().all(afterId ?? '', limit)
          : statements.statement(versionsAfterSql).pluck().all(type, afterId ?? '', limit)
      ) as string[];
      return withReverseIds(statements, rows);
    },

    // SQLite runs one write transaction at a time (the file's write lock): nothing to hold.
    async hold() {},
  };
}

/** Versions read as their rows' data, with their reverse ids unless `read` is false (one query for all of them). */
export function withReverseIds(statements: StatementSource, rows: readonly string[], read = true): Promise<StoredDocument[]> {
  const docs = rows.map((data) => JSON.parse(data) as StoredDocument);
  if (!read) return Promise.resolve(docs);
  return fillReverseIds(docs, (ids) =>
    (statements.statement(reverseIdsSql).all(jsonList(ids)) as { target_id: string; ids: string }[]).map((row) => ({ target_id: row.target_id, ids: JSON.parse(row.ids) as string[] })),
  );
}

/**
 * The version's reverse ids become `ids` (none for null): those it no longer has go, new ones
 * are appended. A version without any costs one indexed delete of nothing.
 */
function keepReverseIds(statements: StatementSource, versionId: string, ids: readonly string[] | null): void {
  const list = jsonList(ids ?? []);
  statements.statement(keepReverseIdsSql).run(versionId, list);
  if (ids !== null && ids.length > 0) statements.statement(addReverseIdsSql).run({ target: versionId, ids: list });
}

type TextColumn = 'id' | 'docId' | 'type' | 'slug' | 'visibility' | 'titleSortified' | 'createdAt' | 'updatedAt' | 'data';
type Row = Record<TextColumn, string> & { archived: number };

/** The columns of a version but its locale and mode, which come with its index (`placeOf`). */
function toRow(doc: StoredDocument): Row {
  return {
    id: doc._id,
    docId: doc.cmsDocId,
    type: doc.type,
    slug: doc.slug,
    archived: doc.archived ? 1 : 0,
    visibility: doc.visibility ?? 'public',
    titleSortified: doc.titleSortified,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    data: JSON.stringify(doc),
  };
}

/** The locale and mode columns: '' for a non-localized version's. */
function placeOf(index: DocumentIndex): { locale: string; mode: string } {
  return { locale: index.locale ?? '', mode: index.mode ?? '' };
}

function partitionOf(row: Row & { locale: string; mode: string }): ValuePartition {
  return { type: row.type, locale: row.locale, mode: row.mode };
}

function runTranslatingErrors<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw translateSqliteError(error);
  }
}
