import { createHash, timingSafeEqual } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Who an API key is, configured or stored: the key's role, and its caller id for per-caller budgets. */
export interface KeyCaller {
  readonly principal: Principal;
  /** `key:<SHA-256 of the key, hex>`: the key itself never sits in memory longer than the request needs it. */
  readonly callerId: string;
}

const callerIdPrefix = 'key:';

/** The caller of a key with this role and SHA-256 digest (hex); `keyId`: a stored key's id. */
export function keyCaller(role: Role, digestHex: string, keyId?: string): KeyCaller {
  const principal: Principal = { kind: 'apiKey', role, userId: null, title: 'System Task', username: null, ...(keyId !== undefined && { keyId }) };
  return { principal, callerId: `${callerIdPrefix}${digestHex}` };
}

/** The SHA-256 digest (hex) a key's caller id names; null for any other text. */
export function digestOfCallerId(callerId: string): string | null {
  const digest = callerId.startsWith(callerIdPrefix) ? callerId.slice(callerIdPrefix.length) : '';
  return /^[0-9a-f]{64}$/.test(digest) ? digest : null;
}

/**
 * The configured API keys. Keys are compared as SHA-256 digests with timingSafeEqual, and every
 * configured key is compared on each lookup, so neither the length nor the position of a match
 * shows in the response time.
 */
export class ApiKeys {
  readonly #entries: readonly { digest: Buffer; role: Role }[];

  constructor(keys: ReadonlyMap<string, { readonly role: Role }>) {
    this.#entries = [...keys].map(([key, { role }]) => ({ digest: digest(key), role }));
  }

  /** The caller of a configured key; null for any other key. Synchronous: no store is asked. */
  identify(key: string): KeyCaller | null {
    const presented = digest(key);
    let role: Role | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, presented)) role = entry.role;
    }
    return role === null ? null : keyCaller(role, presented.toString('hex'));
  }

  /** The role of the configured key with this SHA-256 digest (hex); null when none has it. */
  roleOfDigest(digestHex: string): Role | null {
    return this.#entries.find((entry) => entry.digest.toString('hex') === digestHex)?.role ?? null;
  }
}
