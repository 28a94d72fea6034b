import type { ShareLinkStore, StoredShareLink } from '../interface/share-links.js';
import type { StatementSource } from './statement-cache.js';

// Named as the record's properties, so that a row is a StoredShareLink as read.
const selected = 'id, version_id AS versionId, digest, created_at AS createdAt, created_by AS createdBy, expires_at AS expiresAt';

const insertSql = 'INSERT INTO share_links (id, version_id, digest, created_at, created_by, expires_at) VALUES (?, ?, ?, ?, ?, ?)';
const findByDigestSql = `SELECT ${selected} FROM share_links WHERE digest = ?`;
const listLiveSql = `SELECT ${selected} FROM share_links
  WHERE version_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, id DESC`;
// By id as bytes compare (SQLite's default), as PostgreSQL's COLLATE "C" does: both export in one order.
const linksAfterSql = `SELECT ${selected} FROM share_links WHERE id > ? ORDER BY id LIMIT ?`;
const removeSql = 'DELETE FROM share_links WHERE version_id = ? AND id = ?';
const removeAllSql = 'DELETE FROM share_links WHERE version_id = ?';
const removeExpiredSql = 'DELETE FROM share_links WHERE version_id = ? AND expires_at <= ?';

/** The share_links table, read and written through the given connection's statements. */
export function createSqliteShareLinkStore(statements: StatementSource): ShareLinkStore {
  return {
    async insert({ id, versionId, digest, createdAt, createdBy, expiresAt }) {
      statements.statement(insertSql).run(id, versionId, digest, createdAt, createdBy, expiresAt);
    },

    async findByDigest(digest) {
      return (statements.statement(findByDigestSql).get(digest) as StoredShareLink | undefined) ?? null;
    },

    async listLive(versionId, now) {
      return statements.statement(listLiveSql).all(versionId, now) as StoredShareLink[];
    },

    async remove(versionId, id) {
      return statements.statement(removeSql).run(versionId, id).changes === 1;
    },

    async removeAll(versionId, expiredAt) {
      const removed = expiredAt === undefined ? statements.statement(removeAllSql).run(versionId) : statements.statement(removeExpiredSql).run(versionId, expiredAt);
      return removed.changes;
    },

    async linksAfter(afterId, limit) {
      return statements.statement(linksAfterSql).all(afterId ?? '', limit) as StoredShareLink[];
    },
  };
}
