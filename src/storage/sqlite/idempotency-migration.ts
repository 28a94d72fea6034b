/**
 * The records of writes sent with an `Idempotency-Key` (storage/interface/idempotency-keys.ts):
 * one per caller scope and key; expired ones are pruned in batches along `expires_at`.
 */
export const idempotencyKeysMigration = `
  CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    result_id TEXT NOT NULL,
    answer TEXT,
    PRIMARY KEY (scope, key)
  ) STRICT;
  CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
`;
