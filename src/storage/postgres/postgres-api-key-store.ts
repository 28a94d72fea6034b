import type { ApiKeyStore, StoredApiKey } from '../storage-adapter.js';
import type { StatementSource } from './statements.js';
import { translatingErrors } from './translate-error.js';

const columns = 'id, digest, role, label, hint, created_at, last_used_at';
// Named as the record's properties, so that a row is a StoredApiKey as read.
const selected = 'id, digest, role, label, hint, created_at AS "createdAt", last_used_at AS "lastUsedAt"';

const insertSql = `INSERT INTO api_keys (${columns})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text)`;
const findByDigestSql = `SELECT ${selected} FROM api_keys WHERE digest = $1::text`;
const listSql = `SELECT ${selected} FROM api_keys ORDER BY created_at, id`;
const removeSql = 'DELETE FROM api_keys WHERE id = $1::text';
const markUsedSql = `UPDATE api_keys SET last_used_at = $2::text
  WHERE id = $1::text AND (last_used_at IS NULL OR last_used_at < $2::text)`;

/** The api_keys table, read and written through the given statements. */
export function createPostgresApiKeyStore(statements: StatementSource): ApiKeyStore {
  return {
    async insert({ id, digest, role, label, hint, createdAt, lastUsedAt }) {
      await translatingErrors(() => statements.prepared(insertSql, [id, digest, role, label, hint, createdAt, lastUsedAt]));
    },

    async findByDigest(digest) {
      const { rows } = await statements.prepared<StoredApiKey>(findByDigestSql, [digest]);
      return rows[0] ?? null;
    },

    async list() {
      const { rows } = await statements.prepared<StoredApiKey>(listSql, []);
      return rows;
    },

    async remove(id) {
      const removed = await statements.prepared(removeSql, [id]);
      return removed.rowCount === 1;
    },

    async markUsed(id, usedAt) {
      await statements.prepared(markUsedSql, [id, usedAt]);
    },
  };
}
