import type { IdempotencyKeyStore, StoredIdempotencyKey } from '../interface/idempotency-keys.js';
import type { StatementSource } from './statements.js';

// Named as the record's properties, so that a row is a StoredIdempotencyKey as read.
const selected = 'scope, key, fingerprint, created_at AS "createdAt", expires_at AS "expiresAt", result_id AS "resultId", answer';

// An expired record of the same scope and key is replaced; a live one is left as it is (no row).
// ON CONFLICT waits for an open transaction that inserted the same key, then sees its outcome.
const claimSql = `INSERT INTO idempotency_keys (scope, key, fingerprint, created_at, expires_at, result_id, answer)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, NULL)
  ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, created_at = excluded.created_at,
    expires_at = excluded.expires_at, result_id = excluded.result_id, answer = NULL
  WHERE idempotency_keys.expires_at <= $7::text`;
const findSql = `SELECT ${selected} FROM idempotency_keys WHERE scope = $1::text AND key = $2::text AND expires_at > $3::text`;
const keepAnswerSql = 'UPDATE idempotency_keys SET answer = $1::text WHERE scope = $2::text AND key = $3::text AND fingerprint = $4::text';
// Rows another prune (or a claim) holds are skipped: two processes pruning at once do not wait on each other.
const pruneSql = `DELETE FROM idempotency_keys WHERE (scope, key) IN
  (SELECT scope, key FROM idempotency_keys WHERE expires_at <= $1::text ORDER BY expires_at LIMIT $2::int FOR UPDATE SKIP LOCKED)`;

/** The idempotency_keys table, read and written through the given statements. */
export function createPostgresIdempotencyKeyStore(statements: StatementSource): IdempotencyKeyStore {
  return {
    async claim({ scope, key, fingerprint, createdAt, expiresAt, resultId }, now) {
      const claimed = await statements.prepared(claimSql, [scope, key, fingerprint, createdAt, expiresAt, resultId, now]);
      return claimed.rowCount === 1;
    },

    async find(scope, key, now) {
      const { rows } = await statements.prepared<StoredIdempotencyKey>(findSql, [scope, key, now]);
      return rows[0] ?? null;
    },

    async keepAnswer(scope, key, fingerprint, answer) {
      const kept = await statements.prepared(keepAnswerSql, [answer, scope, key, fingerprint]);
      return kept.rowCount === 1;
    },

    async prune(now, limit) {
      const pruned = await statements.prepared(pruneSql, [now, limit]);
      return pruned.rowCount ?? 0;
    },
  };
}
