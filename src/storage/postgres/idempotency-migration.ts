/**
 * The records of writes sent with an `Idempotency-Key` (storage/interface/idempotency-keys.ts):
 * one per caller scope and key; expired ones are pruned in batches along `expires_at`.
 */
export const idempotencyKeysMigration = `
  CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    created_at text NOT NULL,
    expires_at text NOT NULL,
    result_id text NOT NULL,
    answer text,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
`;
