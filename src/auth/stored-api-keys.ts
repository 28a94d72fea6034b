import { createHash, randomBytes } from 'node:crypto';
import { isRole, roles, type Role } from '../core/principal.js';
import { newId } from '../core/ids.js';
import { InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import type { StorageAdapter, StoredApiKey } from '../storage/storage-adapter.js';
import { keyCaller, type KeyCaller } from './api-keys.js';
import { audit, commandLine } from '../core/audit.js';

/** Every stored key starts with it, so that a key pasted into a log or a repository is recognisable. */
export const storedKeyPrefix = 'cms_';
// 32 random bytes (256 bits), base64url without padding: 43 characters.
const keyBytes = 32;
const storedKeyPattern = /^cms_[A-Za-z0-9_-]{43}$/;
// The prefix and 4 characters (24 of the 256 bits): enough to tell keys apart, nothing to guess with.
const hintLength = storedKeyPrefix.length + 4;
export const maxLabelLength = 200;
// Uses are recorded at most this often per key: a write per request would make every read a write.
const usedEveryMs = 60_000;

/**
 * SHA-256, not a slow password hash: a stored key is 256 random bits, beyond any dictionary or
 * brute force, so a fast digest protects it as well and keeps the per-request lookup cheap.
 */
function keyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A key made now: the key itself, shown once, and what the store keeps of it. */
export interface NewApiKey {
  readonly key: string;
  readonly stored: StoredApiKey;
}

/**
 * API keys kept in the store (`cms apikey …`), beside the configured ones: made, listed and
 * revoked by the command line, recognised by every server process sharing the store. Nothing is
 * cached: a revoked key is refused by the next request, on every process.
 */
export class StoredApiKeys {
  readonly #storage: StorageAdapter;
  /** Ids whose use is being recorded now, so that a burst of requests records it once. */
  readonly #recording = new Set<string>();

  constructor(storage: StorageAdapter) {
    this.#storage = storage;
  }

  /** A new random key with this role; only its digest is stored. */
  async create({ role, label = '' }: { role: string; label?: string }): Promise<NewApiKey> {
    if (!isRole(role)) throw new InvalidRequestError(`The role must be one of ${roles.join(', ')}.`);
    // Printed as is in `cms apikey list`: no control characters that would garble a terminal.
    if (label.length > maxLabelLength || /\p{Cc}/u.test(label)) {
      throw new InvalidRequestError(`The label must be at most ${maxLabelLength} characters, without control characters.`);
    }
    const key = `${storedKeyPrefix}${randomBytes(keyBytes).toString('base64url')}`;
    const stored: StoredApiKey = {
      id: newId(),
      digest: keyDigest(key),
      role,
      label,
      hint: key.slice(0, hintLength),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    };
    await this.#storage.transaction(async (tx) => {
      await tx.apiKeys.insert(stored);
      // Never the key, nor its hint: the trail says a key was made, not how to use it.
      await audit(tx, commandLine, { action: 'apikey.create', ids: [stored.id], detail: { role, label } });
    });
    return { key, stored };
  }

  /** Every stored key, oldest first: ids, roles, labels and hints, never a key. */
  list(): Promise<StoredApiKey[]> {
    return this.#storage.apiKeys.list();
  }

  /** Removes a key: from the next request on, no process accepts it. */
  async revoke(id: string): Promise<void> {
    const removed = await this.#storage.transaction(async (tx) => {
      const found = await tx.apiKeys.remove(id);
      if (found) await audit(tx, commandLine, { action: 'apikey.revoke', ids: [id] });
      return found;
    });
    if (!removed) throw new NotFoundError(`No API key has the id "${id}".`);
  }

  /**
   * Whether a presented key has the form of a stored one. Anything else is refused without
   * asking the store, so that made-up keys cost no query.
   */
  mayBeStored(key: string): boolean {
    return storedKeyPattern.test(key);
  }

  /**
   * The caller of a stored key, or null. One lookup by the digest, the table's primary key: the
   * time it takes tells nothing about the keys that exist beyond whether this one does.
   */
  async identify(key: string): Promise<KeyCaller | null> {
    const digest = keyDigest(key);
    const stored = await this.#storage.apiKeys.findByDigest(digest);
    if (!stored || !isRole(stored.role)) return null;
    this.#recordUse(stored);
    return keyCaller(stored.role, digest, stored.id);
  }

  /** The stored key with this SHA-256 digest (hex) now, its id and role; null when none has it (revoked). */
  async keyOfDigest(digest: string): Promise<{ role: Role; keyId: string } | null> {
    const stored = await this.#storage.apiKeys.findByDigest(digest);
    return stored && isRole(stored.role) ? { role: stored.role, keyId: stored.id } : null;
  }

  /**
   * Records the use, once a minute at most, in the background: when a key was last used is a hint
   * for the operator, not worth delaying or failing a request for.
   */
  #recordUse(stored: StoredApiKey): void {
    const now = Date.now();
    if (stored.lastUsedAt !== null && now - Date.parse(stored.lastUsedAt) < usedEveryMs) return;
    if (this.#recording.has(stored.id)) return;
    this.#recording.add(stored.id);
    const usedAt = new Date(now).toISOString();
    this.#storage
      .transaction((tx) => tx.apiKeys.markUsed(stored.id, usedAt))
      .catch(() => undefined)
      .finally(() => this.#recording.delete(stored.id));
  }
}
