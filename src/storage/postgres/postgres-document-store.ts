import type { DocumentQuery, IndexValue } from '../interface/document-query.js';
import type { DocumentIndex, DocumentStore, StoredDocument } from '../interface/documents.js';
import { documentLockKey, keyLength, lockStatement, slugLockKey } from './migrations.js';
import { beginning, escapeLike, slugIs } from './postgres-conditions.js';
import { assertDocumentIndex, searchTexts, searchVectors, valueArrays } from './postgres-document-index.js';
import { compileCountQuery, compileDistinctValuesQuery, compileFindQuery, compileHeldValuesQuery } from './postgres-query.js';
import type { StatementSource } from './statements.js';
import { conflictError, translatingErrors } from './translate-error.js';
import { fillReverseIds, laterStamp, splitReverseIds } from '../reverse-ids.js';
import { heldValuesKeyByKey } from '../held-values.js';

// Bound as $1 … $12 (the columns), $13 … $18 (the search texts), $19 … $21 (the filter values).
const columns = 'id, doc_id, type, locale, mode, slug, archived, visibility, title_sortified, created_at, updated_at, data';
const vectors = searchVectors(13);
const values = 'unnest($19::text[], $20::float8[], $21::text[]) AS v (key, num, txt)';

// ON CONFLICT DO NOTHING: a taken id or slug writes nothing and raises nothing, so a transaction
// that goes on after a conflict (the caller picks another slug) is not aborted; the store then
// names the conflict. The values are written by the same statement, only for a row it inserted.
const insertSql = `WITH doc AS (
    INSERT INTO documents (${columns}, ${vectors.columns})
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::boolean, $8::text, $9::text,
      $10::text, $11::text, $12::json, ${vectors.values.join(', ')})
    ON CONFLICT DO NOTHING
    RETURNING seq, type, locale, mode
  ), added AS (
    INSERT INTO document_values (seq, type, locale, mode, key, num, txt)
    SELECT doc.seq, doc.type, doc.locale, doc.mode, v.key, v.num, v.txt FROM doc CROSS JOIN ${values}
    ON CONFLICT DO NOTHING
  )
  SELECT seq FROM doc`;

// Only a version of the document's own type: an id never reaches another type's document.
// The slug is checked in the statement for the same reason as in insertSql. The values the document keeps stay;
// the others are deleted and the new ones added (a statement cannot delete and re-add one row:
// its parts all see the table as it was before it).
const updateSql = `WITH doc AS (
    UPDATE documents SET (${columns}, ${vectors.columns}) = ($1::text, $2::text, $3::text, $4::text, $5::text,
      $6::text, $7::boolean, $8::text, $9::text, $10::text, $11::text, $12::json, ${vectors.values.join(', ')})
    WHERE documents.id = $1::text AND documents.type = $3::text AND NOT EXISTS (
      SELECT 1 FROM documents AS other
      WHERE other.locale = $4::text AND other.mode = $5::text AND ${slugIs('other.slug', '$6::text')}
        AND other.id <> $1::text)
    RETURNING seq, type, locale, mode
  ), wanted AS (
    SELECT v.key, v.num, v.txt FROM ${values}
  ), removed AS (
    DELETE FROM document_values AS old USING doc
    WHERE old.seq = doc.seq AND NOT EXISTS (
      SELECT 1 FROM wanted
      WHERE old.type = doc.type AND old.locale = doc.locale AND old.mode = doc.mode AND old.key = wanted.key
        AND old.num IS NOT DISTINCT FROM wanted.num AND old.txt IS NOT DISTINCT FROM wanted.txt)
  ), added AS (
    INSERT INTO document_values (seq, type, locale, mode, key, num, txt)
    SELECT doc.seq, doc.type, doc.locale, doc.mode, wanted.key, wanted.num, wanted.txt FROM doc CROSS JOIN wanted
    WHERE NOT EXISTS (
      SELECT 1 FROM document_values AS old
      WHERE old.seq = doc.seq AND old.type = doc.type AND old.locale = doc.locale AND old.mode = doc.mode
        AND old.key = wanted.key AND old.num IS NOT DISTINCT FROM wanted.num AND old.txt IS NOT DISTINCT FROM wanted.txt)
  )
  SELECT seq FROM doc`;

// An update that keeps the search vectors and the filter values, and the locale and mode (a
// version never moves: its id names them). The ten columns but those two, in their order.
const updateRowSql = `UPDATE documents SET (id, doc_id, type, slug, archived, visibility, title_sortified, created_at, updated_at, data)
    = ($1::text, $2::text, $3::text, $4::text, $5::boolean, $6::text, $7::text, $8::text, $9::text, $10::json)
  WHERE documents.id = $1::text AND documents.type = $3::text AND NOT EXISTS (
    SELECT 1 FROM documents AS other
    WHERE other.locale = documents.locale AND other.mode = documents.mode AND ${slugIs('other.slug', '$4::text')}
      AND other.id <> $1::text)`;

// `own`: the id is taken by a version of the type $5 (what an update may replace).
const takenSql = `SELECT
    EXISTS (SELECT 1 FROM documents WHERE id = $1::text) AS id,
    EXISTS (SELECT 1 FROM documents WHERE id = $1::text AND type = $5::text) AS own,
    EXISTS (SELECT 1 FROM documents WHERE locale = $2::text AND mode = $3::text AND ${slugIs('slug', '$4::text')}) AS slug`;

// The foreign key removes the filter values with the document; the search vectors are in its row.
const removeSql = 'DELETE FROM documents WHERE type = $1::text AND id = ANY ($2::text[])';

// $3 is the beginning of the base that the slug index holds, as a LIKE prefix: a range of it.
const slugsLikeSql = `SELECT slug FROM documents
  WHERE locale = $1::text AND mode = $2::text AND left(slug, ${keyLength}) LIKE $3::text ESCAPE '\\'
    AND (slug = $4::text OR slug LIKE $5::text ESCAPE '\\') AND ($6::text IS NULL OR doc_id <> $6::text)
  ORDER BY slug`;

// A version's reverse ids (see reverse-ids.ts), in the order added.
// Each version's as one array (no row per id to parse).
const reverseIdsSql = `SELECT target_id, json_agg(source_doc_id ORDER BY seq) AS ids FROM document_reverse_ids
  WHERE target_id = ANY ($1::text[]) GROUP BY target_id`;
// The version's reverse ids become $2: the others go, the new ones are appended in order.
const keepReverseIdsSql = `WITH kept AS (
    DELETE FROM document_reverse_ids WHERE target_id = $1::text AND source_doc_id <> ALL ($2::text[])
  )
  INSERT INTO document_reverse_ids (target_id, source_doc_id)
  SELECT $1::text, ids.id FROM unnest($2::text[]) WITH ORDINALITY AS ids (id, n) ORDER BY ids.n
  ON CONFLICT DO NOTHING`;
const dropReverseIdsSql = 'DELETE FROM document_reverse_ids WHERE target_id = ANY ($1::text[])';
const relateSql = `INSERT INTO document_reverse_ids (target_id, source_doc_id)
  SELECT id, $3::text FROM documents WHERE id = $1::text AND type = $2::text ON CONFLICT DO NOTHING`;
const unrelateSql = 'DELETE FROM document_reverse_ids WHERE target_id = $1::text AND source_doc_id = $2::text';
// The versions relateBack moves, read and written back without their ids: a row of fixed size.
const stampedSql = 'SELECT id, data FROM documents WHERE id = ANY ($1::text[]) AND type = $2::text';
const restampSql = 'UPDATE documents SET data = $2::json WHERE id = $1::text AND type = $3::text';

const versionsAfterSql = 'SELECT data FROM documents WHERE type = $1::text AND id > $2::text ORDER BY id LIMIT $3::int';
const allVersionsAfterSql = 'SELECT data FROM documents WHERE id > $1::text ORDER BY id LIMIT $2::int';
// A lock per document, not per row: it holds the versions not stored yet too (the first
// published one, a new locale's draft), and costs no write to the table.
const lockSql = lockStatement(documentLockKey);
// The slugs made from one base (any mode: a write picks them for its modes one after another,
// and one lock for them all keeps two writers from taking them in opposite orders).
const slugLockSql = lockStatement(slugLockKey);

/** Holds the documents `docIds` until the transaction ends (`TransactionOptions.lock`). */
export async function holdDocuments(statements: StatementSource, docIds: readonly string[]): Promise<void> {
  if (docIds.length > 0) await statements.prepared(lockSql, [[...docIds]]);
}

/**
 * The documents table, read and written through the given statements: a transaction's when
 * `inTransaction`, whose slug lookups then hold their base (see slugsLike).
 */
export function createPostgresDocumentStore(statements: StatementSource, inTransaction = false): DocumentStore {
  const taken = async (row: readonly unknown[]): Promise<{ id: boolean; own: boolean; slug: boolean }> => {
    const { rows } = await statements.prepared<{ id: boolean; own: boolean; slug: boolean }>(takenSql, [row[0], row[3], row[4], row[5], row[2]]);
    return rows[0]!;
  };

  // The bases this transaction holds already (a store serves one transaction): a write looks
  // up one base for each of its modes.
  const lockedBases = new Set<string>();

  /** Versions as read, with their reverse ids (one query for all of them). */
  const withReverseIds = (docs: StoredDocument[]) =>
    fillReverseIds(docs, async (ids) => (await statements.prepared<{ target_id: string; ids: string[] }>(reverseIdsSql, [ids])).rows);

  /** The version's reverse ids become `ids` (none for null). */
  const keepReverseIds = async (versionId: string, ids: readonly string[] | null): Promise<void> => {
    await statements.prepared(keepReverseIdsSql, [versionId, ids ?? []]);
  };

  const heldValues = async (query: DocumentQuery, key: string) => {
    const { sql, params } = compileHeldValuesQuery(query, key) ?? compileDistinctValuesQuery(query, key);
    const { rows } = await statements.query<{ num: number | null; txt: string | null }>(sql, params);
    return rows.map((row) => (row.num ?? row.txt) as IndexValue);
  };

  return {
    async find(query: DocumentQuery) {
      const { sql, params } = compileFindQuery(query);
      const { rows } = await statements.query<{ data: StoredDocument }>(sql, params);
      const docs = rows.map((row) => row.data);
      return query.reverseIds === false ? docs : withReverseIds(docs);
    },

    async count(query: DocumentQuery) {
      const { sql, params } = compileCountQuery(query);
      const { rows } = await statements.query<{ count: string }>(sql, params);
      return Number(rows[0]!.count);
    },

    async distinctValues(query: DocumentQuery, key: string) {
      const { sql, params } = compileDistinctValuesQuery(query, key);
      const { rows } = await statements.query<{ num: number | null; txt: string | null; count: string }>(sql, params);
      return rows.map((row) => ({ value: (row.num ?? row.txt) as IndexValue, count: Number(row.count) }));
    },

    heldValues,
    heldValuesOfKeys: (query, keys) => heldValuesKeyByKey({ heldValues }, query, keys),

    async insert(doc, index) {
      assertDocumentIndex(index);
      const { stored, ids } = splitReverseIds(doc);
      const row = toRow(stored, index);
      // A row that conflicted is gone by the time it is looked for only if another writer removed
      // it in between: the insert is then tried again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const inserted = await translatingErrors(() => statements.prepared(insertSql, writeParams(row, index)));
        // A new version has no rows yet (a removed one's went with it).
        if (inserted.rowCount !== 0) return ids !== null && ids.length > 0 ? keepReverseIds(doc._id, ids) : undefined;
        const { id, slug } = await taken(row);
        if (id) throw conflictError('documents_id');
        if (slug) throw conflictError('documents_slug');
      }
      throw new Error(`Could not insert document ${doc._id}: it conflicted with rows that then disappeared`);
    },

    async update(doc, index) {
      if (index) assertDocumentIndex(index);
      // Without an index, the locale and mode stay as stored: the slug lookup of `taken` is unused.
      const { stored, ids } = splitReverseIds(doc);
      const row = toRow(stored, index ?? { locale: null, mode: null });
      const updated = await translatingErrors(() =>
        index ? statements.prepared(updateSql, writeParams(row, index)) : statements.prepared(updateRowSql, unplaced(row)),
      );
      if (updated.rowCount !== 0) {
        await keepReverseIds(doc._id, ids);
        return true;
      }
      // Nothing updated: no such document of this type, or its new slug is another's.
      if ((await taken(row)).own) throw conflictError('documents_slug');
      return false;
    },

    async remove(type, ids) {
      if (ids.length === 0) return 0;
      const removed = await statements.prepared(removeSql, [type, [...ids]]);
      // An id is unique across types: one removed leaves no version its reverse ids could name.
      if (removed.rowCount) await statements.prepared(dropReverseIdsSql, [[...ids]]);
      return removed.rowCount ?? 0;
    },

    async relateBack(type, sourceDocId, changes, stamp) {
      if (changes.length === 0) return;
      for (const { versionId, present } of changes) {
        await (present ? statements.prepared(relateSql, [versionId, type, sourceDocId]) : statements.prepared(unrelateSql, [versionId, sourceDocId]));
      }
      const gaining = new Set(changes.filter((change) => change.present).map((change) => change.versionId));
      const { rows } = await statements.prepared<{ id: string; data: StoredDocument }>(stampedSql, [changes.map((change) => change.versionId), type]);
      for (const { id, data } of rows) {
        data.cacheInvalidatedAt = laterStamp(data.cacheInvalidatedAt, stamp);
        if (gaining.has(id)) data.relatedReverseIds = [];
        await statements.prepared(restampSql, [id, JSON.stringify(data), type]);
      }
    },

    async slugsLike({ locale, mode, base, exceptDocId }) {
      // Writers of one base take turns from here to their commit: the slug picked from this
      // answer is still free when it is written, instead of lost to another writer and picked
      // again. (A slug taken under another base, "a-2" asked for as such, is still a race: the
      // unique index refuses it and the adapter runs the work again.)
      const baseKey = `${locale ?? ''}:${base}`;
      if (inTransaction && !lockedBases.has(baseKey)) {
        await statements.prepared(slugLockSql, [[baseKey]]);
        lockedBases.add(baseKey);
      }
      const { rows } = await statements.query<{ slug: string }>(slugsLikeSql, [
        locale ?? '',
        mode ?? '',
        `${escapeLike(beginning(base, keyLength))}%`,
        base,
        `${escapeLike(base)}-%`,
        exceptDocId ?? null,
      ]);
      return rows.map((row) => row.slug);
    },

    async versionsAfter(type, afterId, limit) {
      const { rows } =
        type === null
          ? await statements.prepared<{ data: StoredDocument }>(allVersionsAfterSql, [afterId ?? '', limit])
          : await statements.prepared<{ data: StoredDocument }>(versionsAfterSql, [type, afterId ?? '', limit]);
      return withReverseIds(rows.map((row) => row.data));
    },

    async hold(docIds) {
      if (inTransaction) await holdDocuments(statements, docIds);
    },
  };
}

/** The twelve column values, in the order of `columns`: the locale and mode ('' for none) from the index. */
function toRow(doc: StoredDocument, place: Pick<DocumentIndex, 'locale' | 'mode'>): unknown[] {
  return [
    doc._id,
    doc.cmsDocId,
    doc.type,
    place.locale ?? '',
    place.mode ?? '',
    doc.slug,
    doc.archived === true,
    doc.visibility ?? 'public',
    // Only the beginning sorts: titles alike in their first 200 characters sort by _id.
    beginning(String(doc.titleSortified), keyLength),
    doc.createdAt,
    doc.updatedAt,
    // Stringified here: the json column keeps the text as it is, key order included.
    JSON.stringify(doc),
  ];
}

function writeParams(row: readonly unknown[], index: DocumentIndex): unknown[] {
  return [...row, ...searchTexts(index), ...valueArrays(index)];
}

/** A row without its locale and mode, for `updateRowSql`. */
function unplaced(row: readonly unknown[]): unknown[] {
  return [...row.slice(0, 3), ...row.slice(5)];
}
