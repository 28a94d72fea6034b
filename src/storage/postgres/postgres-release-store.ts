import type { ReleaseStore, StoredRelease, StoredReleaseDocument } from '../interface/releases.js';
import type { StatementSource } from './statements.js';

// Named as the record's properties, so that a row is a StoredRelease as read.
const selected = `id, title, publish_at AS "publishAt", state, created_at AS "createdAt", created_by AS "createdBy",
  updated_at AS "updatedAt", published_at AS "publishedAt", published_by AS "publishedBy", failure`;

const insertSql = `INSERT INTO releases (id, title, publish_at, state, created_at, created_by, updated_at, published_at, published_by, failure)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text)`;
const findSql = `SELECT ${selected} FROM releases WHERE id = $1::text`;
const listSql = `SELECT ${selected} FROM releases ORDER BY created_at DESC, id DESC LIMIT $1::int`;
const listBeforeSql = `SELECT ${selected} FROM releases
  WHERE (created_at, id) < (SELECT created_at, id FROM releases WHERE id = $1::text) ORDER BY created_at DESC, id DESC LIMIT $2::int`;
const editSql = `UPDATE releases SET title = $1::text, publish_at = $2::text, updated_at = $3::text WHERE id = $4::text AND state IN ('open', 'failed')`;
const removeSql = `DELETE FROM releases WHERE id = $1::text AND state <> 'published'`;
// Lists of ids go in as one array: one statement whatever their number.
const transitionSql = `UPDATE releases SET state = $1::text, updated_at = $2::text,
  published_at = CASE WHEN $3::boolean THEN $4::text ELSE published_at END,
  published_by = CASE WHEN $5::boolean THEN $6::text ELSE published_by END,
  failure = CASE WHEN $7::boolean THEN $8::text ELSE failure END
  WHERE id = $9::text AND state = ANY ($10::text[])`;
const addSql = `INSERT INTO release_documents (release_id, version_id, type)
  SELECT $1::text, v, t FROM unnest($2::text[], $3::text[]) AS d (v, t)
  ON CONFLICT (release_id, version_id) DO NOTHING`;
const removeDocumentsSql = 'DELETE FROM release_documents WHERE release_id = $1::text AND version_id = ANY ($2::text[])';
const documentsSql = `SELECT version_id AS "versionId", type, was_published AS "wasPublished" FROM release_documents
  WHERE release_id = $1::text ORDER BY version_id COLLATE "C"`;
const countSql = 'SELECT count(*)::int AS count FROM release_documents WHERE release_id = $1::text';
const markSql = `UPDATE release_documents SET was_published = (version_id = ANY ($1::text[]))
  WHERE release_id = $2::text AND version_id = ANY ($3::text[])`;
const dueSql = `SELECT id FROM releases WHERE state = 'open' AND publish_at IS NOT NULL AND publish_at <= $1::text ORDER BY publish_at, id LIMIT $2::int`;

/** The releases and release_documents tables, read and written through the given statements. */
export function createPostgresReleaseStore(statements: StatementSource): ReleaseStore {
  return {
    async insert(r) {
      await statements.prepared(insertSql, [r.id, r.title, r.publishAt, r.state, r.createdAt, r.createdBy, r.updatedAt, r.publishedAt, r.publishedBy, r.failure]);
    },
    async find(id) {
      const { rows } = await statements.prepared<StoredRelease>(findSql, [id]);
      return rows[0] ?? null;
    },
    async list(limit, beforeId) {
      const { rows } = beforeId === null
        ? await statements.prepared<StoredRelease>(listSql, [limit])
        : await statements.prepared<StoredRelease>(listBeforeSql, [beforeId, limit]);
      return rows;
    },
    async edit(id, { title, publishAt, updatedAt }) {
      return (await statements.prepared(editSql, [title, publishAt, updatedAt, id])).rowCount === 1;
    },
    async transition(id, from, to) {
      const moved = await statements.prepared(transitionSql, [
        to.state, to.updatedAt, to.publishedAt !== undefined, to.publishedAt ?? null, to.publishedBy !== undefined, to.publishedBy ?? null,
        to.failure !== undefined, to.failure ?? null, id, from,
      ]);
      return moved.rowCount === 1;
    },
    async remove(id) {
      return (await statements.prepared(removeSql, [id])).rowCount === 1;
    },
    async addDocuments(releaseId, documents) {
      if (documents.length === 0) return;
      await statements.prepared(addSql, [releaseId, documents.map((d) => d.versionId), documents.map((d) => d.type)]);
    },
    async removeDocuments(releaseId, versionIds) {
      if (versionIds.length === 0) return 0;
      return (await statements.prepared(removeDocumentsSql, [releaseId, versionIds])).rowCount ?? 0;
    },
    async documents(releaseId) {
      const { rows } = await statements.prepared<StoredReleaseDocument>(documentsSql, [releaseId]);
      return rows;
    },
    async countDocuments(releaseId) {
      const { rows } = await statements.prepared<{ count: number }>(countSql, [releaseId]);
      return rows[0]!.count;
    },
    async markPublished(releaseId, wasPublished, firstPublished) {
      await statements.prepared(markSql, [wasPublished, releaseId, [...wasPublished, ...firstPublished]]);
    },
    async due(now, limit) {
      const { rows } = await statements.prepared<{ id: string }>(dueSql, [now, limit]);
      return rows.map((row) => row.id);
    },
  };
}
