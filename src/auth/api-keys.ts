import { createHash, timingSafeEqual } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
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

  /**
   * The principal of a configured key, with a caller id made from the key's digest (the key
   * itself never sits in memory longer than the request needs it); null for any other key.
   */
  identify(key: string): { principal: Principal; callerId: string } | null {
    const presented = digest(key);
    let role: Role | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, presented)) role = entry.role;
    }
    if (role === null) return null;
    const principal: Principal = { kind: 'apiKey', role, userId: null, title: 'System Task', username: null };
    return { principal, callerId: `key:${presented.toString('hex')}` };
  }
}
