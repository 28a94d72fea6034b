import type { StorageSession } from '../../storage/storage-adapter.js';
import type { IdempotentRequest } from './caller.js';

/**
 * Ends the transaction of a write whose key a live record already holds: another request with
 * the key committed first (or is committing: PostgreSQL waits for it). Nothing is written twice.
 */
export class KeyTaken extends Error {}

/**
 * Claims the key of a write in the write's own transaction, with the version it answers: a
 * write that commits always has its record, one that rolls back has none.
 */
export async function claimKey(session: StorageSession, request: IdempotentRequest, resultId: string, ttlSeconds: number): Promise<void> {
  const now = new Date();
  const { scope, key, fingerprint } = request;
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000).toISOString();
  const claimed = await session.idempotencyKeys.claim({ scope, key, fingerprint, createdAt: now.toISOString(), expiresAt, resultId }, now.toISOString());
  if (!claimed) throw new KeyTaken();
}
