import type { ReviewStore, StoredReviewComment, StoredReviewLink } from '../interface/review.js';
import type { StatementSource } from './statement-cache.js';

const comment = `id, version_id AS versionId, field, body, created_at AS createdAt, created_by AS createdBy, resolved, resolved_at AS resolvedAt`;
const link = `digest, version_id AS versionId, content_digest AS contentDigest, created_at AS createdAt, created_by AS createdBy, expires_at AS expiresAt, used_at AS usedAt`;

const insertCommentSql = 'INSERT INTO review_comments (id, version_id, field, body, created_at, created_by, resolved, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
const listCommentsSql = `SELECT ${comment} FROM review_comments WHERE version_id = ? ORDER BY created_at, id LIMIT ?`;
const countCommentsSql = 'SELECT count(*) AS n FROM review_comments WHERE version_id = ?';
const resolveSql = 'UPDATE review_comments SET resolved = ?, resolved_at = ? WHERE version_id = ? AND id = ?';
const findCommentSql = `SELECT ${comment} FROM review_comments WHERE version_id = ? AND id = ?`;
const removeCommentsSql = 'DELETE FROM review_comments WHERE version_id = ?';
const insertLinkSql = 'INSERT INTO review_links (digest, version_id, content_digest, created_at, created_by, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const findLinkSql = `SELECT ${link} FROM review_links WHERE digest = ?`;
const useLinkSql = 'UPDATE review_links SET used_at = ? WHERE digest = ? AND used_at IS NULL';

type CommentRow = Omit<StoredReviewComment, 'resolved'> & { resolved: number };
const commentOf = (row: CommentRow): StoredReviewComment => ({ ...row, resolved: row.resolved === 1 });

/** The review_comments and review_links tables, through the given connection's statements. */
export function createSqliteReviewStore(statements: StatementSource): ReviewStore {
  return {
    async insertComment(c) {
      statements.statement(insertCommentSql).run(c.id, c.versionId, c.field, c.body, c.createdAt, c.createdBy, c.resolved ? 1 : 0, c.resolvedAt);
    },
    async listComments(versionId, limit) {
      return (statements.statement(listCommentsSql).all(versionId, limit) as CommentRow[]).map(commentOf);
    },
    async countComments(versionId) {
      return (statements.statement(countCommentsSql).get(versionId) as { n: number }).n;
    },
    async resolveComment(versionId, id, resolved, at) {
      statements.statement(resolveSql).run(resolved ? 1 : 0, resolved ? at : null, versionId, id);
      const row = statements.statement(findCommentSql).get(versionId, id) as CommentRow | undefined;
      return row ? commentOf(row) : null;
    },
    async removeComments(versionId) {
      return statements.statement(removeCommentsSql).run(versionId).changes;
    },
    async insertLink(l) {
      statements.statement(insertLinkSql).run(l.digest, l.versionId, l.contentDigest, l.createdAt, l.createdBy, l.expiresAt, l.usedAt);
    },
    async findLink(digest) {
      return (statements.statement(findLinkSql).get(digest) as StoredReviewLink | undefined) ?? null;
    },
    async useLink(digest, at) {
      return statements.statement(useLinkSql).run(at, digest).changes === 1;
    },
  };
}
