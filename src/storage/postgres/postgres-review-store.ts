import type { ReviewStore, StoredReviewComment, StoredReviewLink } from '../interface/review.js';
import type { StatementSource } from './statements.js';

const comment = `id, version_id AS "versionId", field, body, created_at AS "createdAt", created_by AS "createdBy", resolved, resolved_at AS "resolvedAt"`;
const link = `digest, version_id AS "versionId", content_digest AS "contentDigest", created_at AS "createdAt", created_by AS "createdBy", expires_at AS "expiresAt", used_at AS "usedAt"`;

const insertCommentSql = `INSERT INTO review_comments (id, version_id, field, body, created_at, created_by, resolved, resolved_at)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::boolean, $8::text)`;
const listCommentsSql = `SELECT ${comment} FROM review_comments WHERE version_id = $1::text ORDER BY created_at, id COLLATE "C" LIMIT $2::int`;
const countCommentsSql = 'SELECT count(*)::int AS n FROM review_comments WHERE version_id = $1::text';
const resolveSql = `UPDATE review_comments SET resolved = $1::boolean, resolved_at = $2::text WHERE version_id = $3::text AND id = $4::text RETURNING ${comment}`;
const removeCommentsSql = 'DELETE FROM review_comments WHERE version_id = $1::text';
const insertLinkSql = `INSERT INTO review_links (digest, version_id, content_digest, created_at, created_by, expires_at, used_at)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text)`;
const findLinkSql = `SELECT ${link} FROM review_links WHERE digest = $1::text`;
const useLinkSql = 'UPDATE review_links SET used_at = $1::text WHERE digest = $2::text AND used_at IS NULL';

/** The review_comments and review_links tables, through the given statements. */
export function createPostgresReviewStore(statements: StatementSource): ReviewStore {
  return {
    async insertComment(c) {
      await statements.prepared(insertCommentSql, [c.id, c.versionId, c.field, c.body, c.createdAt, c.createdBy, c.resolved, c.resolvedAt]);
    },
    async listComments(versionId, limit) {
      return (await statements.prepared<StoredReviewComment>(listCommentsSql, [versionId, limit])).rows;
    },
    async countComments(versionId) {
      return (await statements.prepared<{ n: number }>(countCommentsSql, [versionId])).rows[0]!.n;
    },
    async resolveComment(versionId, id, resolved, at) {
      return (await statements.prepared<StoredReviewComment>(resolveSql, [resolved, resolved ? at : null, versionId, id])).rows[0] ?? null;
    },
    async removeComments(versionId) {
      return (await statements.prepared(removeCommentsSql, [versionId])).rowCount ?? 0;
    },
    async insertLink(l) {
      await statements.prepared(insertLinkSql, [l.digest, l.versionId, l.contentDigest, l.createdAt, l.createdBy, l.expiresAt, l.usedAt]);
    },
    async findLink(digest) {
      return (await statements.prepared<StoredReviewLink>(findLinkSql, [digest])).rows[0] ?? null;
    },
    async useLink(digest, at) {
      return (await statements.prepared(useLinkSql, [at, digest])).rowCount === 1;
    },
  };
}
