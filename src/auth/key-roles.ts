import type { Role } from '../core/principal.js';
import { digestOfCallerId, type ApiKeys } from './api-keys.js';
import type { StoredApiKeys } from './stored-api-keys.js';

/**
 * The role an API key has now, by its caller id (`key:<SHA-256 of the key>`): a configured key
 * as the configuration says, else a stored one as the store says (nothing cached, as for a
 * request). A schedule set with a key runs only while the key is accepted, with its role then.
 */
export class KeyRoles {
  readonly #configured: ApiKeys;
  readonly #stored: StoredApiKeys;

  constructor(configured: ApiKeys, stored: StoredApiKeys) {
    this.#configured = configured;
    this.#stored = stored;
  }

  /**
   * The key's role now, and a stored key's id (the audit trail's actor); null: no configured or
   * stored key has this caller id (revoked, removed from the configuration).
   */
  async keyOf(callerId: string): Promise<{ role: Role; keyId?: string } | null> {
    const digest = digestOfCallerId(callerId);
    if (digest === null) return null;
    const configured = this.#configured.roleOfDigest(digest);
    return configured ? { role: configured } : await this.#stored.keyOfDigest(digest);
  }
}
