import type { DocumentQuery, DocumentStore, StoredDocument } from '../storage-adapter.js';
import { compileCountQuery, compileFindQuery, jsonList } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';
import { translateSqliteError } from './translate-error.js';

const columnValues = `@id, @docId, @type, @locale, @mode, @slug, @archived, @visibility, @titleSortified,
  @createdAt, @updatedAt, @data`;

const insertSql = `INSERT INTO documents (id, doc_id, type, locale, mode, slug, archived, visibility,
  title_sortified, created_at, updated_at, data) VALUES (${columnValues})`;

const updateSql = `UPDATE documents SET doc_id = @docId, type = @type, locale = @locale, mode = @mode,
  slug = @slug, archived = @archived, visibility = @visibility, title_sortified = @titleSortified,
  created_at = @createdAt, updated_at = @updatedAt, data = @data WHERE id = @id`;

const removeSql = 'DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))';

const slugsLikeSql = `SELECT slug FROM documents
  WHERE locale = @locale AND mode = @mode AND (slug = @base OR slug LIKE @pattern ESCAPE '\\')
    AND (@exceptDocId IS NULL OR doc_id <> @exceptDocId)
  ORDER BY slug`;

/** The documents table, read and written through the given connection's statements. */
export function createSqliteDocumentStore(statements: StatementSource): DocumentStore {
  return {
    async find(query: DocumentQuery) {
      const { sql, params } = compileFindQuery(query);
      const rows = statements.statement(sql).pluck().all(...params) as string[];
      return rows.map((data) => JSON.parse(data) as StoredDocument);
    },

    async count(query: DocumentQuery) {
      const { sql, params } = compileCountQuery(query);
      return statements.statement(sql).pluck().get(...params) as number;
    },

    async insert(doc) {
      runTranslatingErrors(() => statements.statement(insertSql).run(toRow(doc)));
    },

    async update(doc) {
      return runTranslatingErrors(() => statements.statement(updateSql).run(toRow(doc))).changes > 0;
    },

    async remove(ids) {
      if (ids.length === 0) return 0;
      return statements.statement(removeSql).run(jsonList(ids)).changes;
    },

    async slugsLike({ locale, mode, base, exceptDocId }) {
      const slugs = statements.statement(slugsLikeSql).pluck().all({
        locale: locale ?? '',
        mode: mode ?? '',
        base,
        pattern: `${escapeLike(base)}-%`,
        exceptDocId: exceptDocId ?? null,
      }) as string[];
      // SQLite's LIKE ignores ASCII case; slugs are compared exactly, as the unique index does.
      return slugs.filter((slug) => slug === base || slug.startsWith(`${base}-`));
    },
  };
}

function toRow(doc: StoredDocument): Record<string, string | number> {
  return {
    id: doc._id,
    docId: doc.cmsDocId,
    type: doc.type,
    locale: doc.cmsLocale === undefined ? '' : localePart(doc.cmsLocale),
    mode: doc.cmsMode ?? '',
    slug: doc.slug,
    archived: doc.archived ? 1 : 0,
    visibility: doc.visibility ?? 'public',
    titleSortified: doc.titleSortified,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    data: JSON.stringify(doc),
  };
}

/** `en:draft` → `en`. */
function localePart(cmsLocale: string): string {
  const separator = cmsLocale.lastIndexOf(':');
  return separator < 0 ? cmsLocale : cmsLocale.slice(0, separator);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

function runTranslatingErrors<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw translateSqliteError(error);
  }
}
