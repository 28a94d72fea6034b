import type { IdempotencyKeyStore, StoredIdempotencyKey } from '../interface/idempotency-keys.js';
import type { StatementSource } from './statement-cache.js';

// Named as the record's properties, so that a row is a StoredIdempotencyKey as read.
const selected = 'scope, key, fingerprint, created_at AS createdAt, expires_at AS expiresAt, result_id AS resultId, answer';

// An expired record of the same scope and key is replaced; a live one is left as it is (no change).
const claimSql = `INSERT INTO idempotency_keys (scope, key, fingerprint, created_at, expires_at, result_id, answer)
  VALUES (?, ?, ?, ?, ?, ?, NULL)
  ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, created_at = excluded.created_at,
    expires_at = excluded.expires_at, result_id = excluded.result_id, answer = NULL
  WHERE idempotency_keys.expires_at <= ?`;
const findSql = `SELECT ${selected} FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at > ?`;
const keepAnswerSql = 'UPDATE idempotency_keys SET answer = ? WHERE scope = ? AND key = ? AND fingerprint = ?';
const pruneSql = `DELETE FROM idempotency_keys WHERE rowid IN
  (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`;

/** The idempotency_keys table, read and written through the given connection's statements. */
export function createSqliteIdempotencyKeyStore(statements: StatementSource): IdempotencyKeyStore {
  return {
    async claim({ scope, key, fingerprint, createdAt, expiresAt, resultId }, now) {
      return statements.statement(claimSql).run(scope, key, fingerprint, createdAt, expiresAt, resultId, now).changes === 1;
    },

    async find(scope, key, now) {
      return (statements.statement(findSql).get(scope, key, now) as StoredIdempotencyKey | undefined) ?? null;
    },

    async keepAnswer(scope, key, fingerprint, answer) {
      return statements.statement(keepAnswerSql).run(answer, scope, key, fingerprint).changes === 1;
    },

    async prune(now, limit) {
      return statements.statement(pruneSql).run(now, limit).changes;
    },
  };
}
