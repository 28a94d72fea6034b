import type { ApiKeyStore, StoredApiKey } from '../storage-adapter.js';
import type { StatementSource } from './statement-cache.js';
import { translateSqliteError } from './translate-error.js';

const columns = 'id, digest, role, label, hint, created_at, last_used_at';
// Named as the record's properties, so that a row is a StoredApiKey as read.
const selected = 'id, digest, role, label, hint, created_at AS "createdAt", last_used_at AS "lastUsedAt"';

const insertSql = `INSERT INTO api_keys (${columns})
  VALUES (@id, @digest, @role, @label, @hint, @createdAt, @lastUsedAt)`;
const findByDigestSql = `SELECT ${selected} FROM api_keys WHERE digest = ?`;
const listSql = `SELECT ${selected} FROM api_keys ORDER BY created_at, id`;
const removeSql = 'DELETE FROM api_keys WHERE id = ?';
const markUsedSql = `UPDATE api_keys SET last_used_at = @usedAt
  WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @usedAt)`;

/** The api_keys table, read and written through the given connection's statements. */
export function createSqliteApiKeyStore(statements: StatementSource): ApiKeyStore {
  return {
    async insert({ id, digest, role, label, hint, createdAt, lastUsedAt }) {
      try {
        statements.statement(insertSql).run({ id, digest, role, label, hint, createdAt, lastUsedAt });
      } catch (error) {
        throw translateSqliteError(error);
      }
    },

    async findByDigest(digest) {
      const row = statements.statement(findByDigestSql).get(digest) as StoredApiKey | undefined;
      return row ?? null;
    },

    async list() {
      return statements.statement(listSql).all() as StoredApiKey[];
    },

    async remove(id) {
      return statements.statement(removeSql).run(id).changes === 1;
    },

    async markUsed(id, usedAt) {
      statements.statement(markUsedSql).run({ id, usedAt });
    },
  };
}
