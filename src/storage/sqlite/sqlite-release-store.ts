import type { ReleaseStore, StoredRelease, StoredReleaseDocument } from '../interface/releases.js';
import type { StatementSource } from './statement-cache.js';

// Named as the record's properties, so that a row is a StoredRelease as read.
const selected = `id, title, publish_at AS publishAt, state, created_at AS createdAt, created_by AS createdBy,
  updated_at AS updatedAt, published_at AS publishedAt, published_by AS publishedBy, failure`;

const insertSql = `INSERT INTO releases (id, title, publish_at, state, created_at, created_by, updated_at, published_at, published_by, failure)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const findSql = `SELECT ${selected} FROM releases WHERE id = ?`;
const listSql = `SELECT ${selected} FROM releases ORDER BY created_at DESC, id DESC LIMIT ?`;
const listBeforeSql = `SELECT ${selected} FROM releases
  WHERE (created_at, id) < (SELECT created_at, id FROM releases WHERE id = ?) ORDER BY created_at DESC, id DESC LIMIT ?`;
const editSql = `UPDATE releases SET title = ?, publish_at = ?, updated_at = ? WHERE id = ? AND state IN ('open', 'failed')`;
const removeSql = `DELETE FROM releases WHERE id = ? AND state <> 'published'`;
// Lists of ids go in as one JSON array: one statement whatever their number.
const transitionSql = `UPDATE releases SET state = ?, updated_at = ?,
  published_at = CASE WHEN ? THEN ? ELSE published_at END,
  published_by = CASE WHEN ? THEN ? ELSE published_by END,
  failure = CASE WHEN ? THEN ? ELSE failure END
  WHERE id = ? AND state IN (SELECT value FROM json_each(?))`;
const addSql = `INSERT INTO release_documents (release_id, version_id, type)
  SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?) WHERE true
  ON CONFLICT (release_id, version_id) DO NOTHING`;
const removeDocumentsSql = 'DELETE FROM release_documents WHERE release_id = ? AND version_id IN (SELECT value FROM json_each(?))';
const documentsSql = `SELECT version_id AS versionId, type, was_published AS wasPublished FROM release_documents
  WHERE release_id = ? ORDER BY version_id`;
const countSql = 'SELECT count(*) AS count FROM release_documents WHERE release_id = ?';
const markSql = `UPDATE release_documents SET was_published = CASE WHEN version_id IN (SELECT value FROM json_each(?)) THEN 1 ELSE 0 END
  WHERE release_id = ? AND version_id IN (SELECT value FROM json_each(?))`;
const dueSql = `SELECT id FROM releases WHERE state = 'open' AND publish_at IS NOT NULL AND publish_at <= ? ORDER BY publish_at, id LIMIT ?`;

/** The releases and release_documents tables, read and written through the given connection's statements. */
export function createSqliteReleaseStore(statements: StatementSource): ReleaseStore {
  return {
    async insert(r) {
      statements.statement(insertSql).run(r.id, r.title, r.publishAt, r.state, r.createdAt, r.createdBy, r.updatedAt, r.publishedAt, r.publishedBy, r.failure);
    },
    async find(id) {
      return (statements.statement(findSql).get(id) as StoredRelease | undefined) ?? null;
    },
    async list(limit, beforeId) {
      return (beforeId === null ? statements.statement(listSql).all(limit) : statements.statement(listBeforeSql).all(beforeId, limit)) as StoredRelease[];
    },
    async edit(id, { title, publishAt, updatedAt }) {
      return statements.statement(editSql).run(title, publishAt, updatedAt, id).changes === 1;
    },
    async transition(id, from, to) {
      const has = (key: keyof typeof to) => (to[key] !== undefined ? 1 : 0);
      return statements.statement(transitionSql).run(
        to.state, to.updatedAt, has('publishedAt'), to.publishedAt ?? null, has('publishedBy'), to.publishedBy ?? null,
        has('failure'), to.failure ?? null, id, JSON.stringify(from),
      ).changes === 1;
    },
    async remove(id) {
      return statements.statement(removeSql).run(id).changes === 1;
    },
    async addDocuments(releaseId, documents) {
      if (documents.length === 0) return;
      statements.statement(addSql).run(releaseId, JSON.stringify(documents.map((d) => [d.versionId, d.type])));
    },
    async removeDocuments(releaseId, versionIds) {
      if (versionIds.length === 0) return 0;
      return statements.statement(removeDocumentsSql).run(releaseId, JSON.stringify(versionIds)).changes;
    },
    async documents(releaseId) {
      const rows = statements.statement(documentsSql).all(releaseId) as { versionId: string; type: string; wasPublished: number | null }[];
      return rows.map((row): StoredReleaseDocument => ({ ...row, wasPublished: row.wasPublished === null ? null : row.wasPublished === 1 }));
    },
    async countDocuments(releaseId) {
      return (statements.statement(countSql).get(releaseId) as { count: number }).count;
    },
    async markPublished(releaseId, wasPublished, firstPublished) {
      statements.statement(markSql).run(JSON.stringify(wasPublished), releaseId, JSON.stringify([...wasPublished, ...firstPublished]));
    },
    async due(now, limit) {
      return (statements.statement(dueSql).all(now, limit) as { id: string }[]).map((row) => row.id);
    },
  };
}
