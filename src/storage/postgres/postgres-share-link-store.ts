import type { ShareLinkStore, StoredShareLink } from '../interface/share-links.js';
import type { StatementSource } from './statements.js';

// Named as the record's properties, so that a row is a StoredShareLink as read.
const selected = 'id, version_id AS "versionId", digest, created_at AS "createdAt", created_by AS "createdBy", expires_at AS "expiresAt"';

const insertSql = `INSERT INTO share_links (id, version_id, digest, created_at, created_by, expires_at)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text)`;
const findByDigestSql = `SELECT ${selected} FROM share_links WHERE digest = $1::text`;
const listLiveSql = `SELECT ${selected} FROM share_links
  WHERE version_id = $1::text AND (expires_at IS NULL OR expires_at > $2::text) ORDER BY created_at DESC, id DESC`;
// By id as bytes compare (the column has the database's collation), as SQLite does: both export in one order.
const linksAfterSql = `SELECT ${selected} FROM share_links WHERE id COLLATE "C" > $1::text ORDER BY id COLLATE "C" LIMIT $2::int`;
const removeSql = 'DELETE FROM share_links WHERE version_id = $1::text AND id = $2::text';
const removeAllSql = 'DELETE FROM share_links WHERE version_id = $1::text';
const removeExpiredSql = 'DELETE FROM share_links WHERE version_id = $1::text AND expires_at <= $2::text';

/** The share_links table, read and written through the given statements. */
export function createPostgresShareLinkStore(statements: StatementSource): ShareLinkStore {
  return {
    async insert({ id, versionId, digest, createdAt, createdBy, expiresAt }) {
      await statements.prepared(insertSql, [id, versionId, digest, createdAt, createdBy, expiresAt]);
    },

    async findByDigest(digest) {
      const { rows } = await statements.prepared<StoredShareLink>(findByDigestSql, [digest]);
      return rows[0] ?? null;
    },

    async listLive(versionId, now) {
      const { rows } = await statements.prepared<StoredShareLink>(listLiveSql, [versionId, now]);
      return rows;
    },

    async remove(versionId, id) {
      const removed = await statements.prepared(removeSql, [versionId, id]);
      return removed.rowCount === 1;
    },

    async removeAll(versionId, expiredAt) {
      const removed = expiredAt === undefined
        ? await statements.prepared(removeAllSql, [versionId])
        : await statements.prepared(removeExpiredSql, [versionId, expiredAt]);
      return removed.rowCount ?? 0;
    },

    async linksAfter(afterId, limit) {
      const { rows } = await statements.prepared<StoredShareLink>(linksAfterSql, [afterId ?? '', limit]);
      return rows;
    },
  };
}
