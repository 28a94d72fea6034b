import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BoundedPool } from '../core/bounded-pool.js';

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's Password Storage Cheat Sheet: scrypt with N = 2^17, r = 8, p = 1 (128 MiB, about 0.4 s here). */
export const currentParams: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const keyLength = 64;
const saltLength = 16;

function derive(plain: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  // Room for the memory scrypt needs (128 * N * r bytes) plus slack.
  const maxmem = 128 * (options.N ?? 0) * (options.r ?? 0) * (options.p ?? 1) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(plain, salt, length, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function encode(params: ScryptParams, salt: Buffer, key: Buffer): string {
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** `scrypt$N$r$p$saltB64$hashB64`; without the pool (tests make hashes of older parameters with it). */
export async function hashPassword(plain: string, params: ScryptParams = currentParams): Promise<string> {
  const salt = randomBytes(saltLength);
  return encode(params, salt, await derive(plain, salt, params, keyLength));
}

interface Encoded extends ScryptParams {
  readonly salt: Buffer;
  readonly key: Buffer;
}

/** Bounds keep a tampered hash from making verification arbitrarily expensive. */
function parse(encoded: string): Encoded | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const powerOfTwo = Number.isInteger(N) && N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return null;
  const salt = Buffer.from(parts[4]!, 'base64');
  const key = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || key.length < 16 || key.length > 256) return null;
  return { N, r, p, salt, key };
}


export interface Verification {
  readonly valid: boolean;
  /** The hash was made with older parameters: store a new one while the password is at hand. */
  readonly outdated: boolean;
}

/**
 * Hashes and verifies passwords with scrypt on a bounded pool. scrypt runs on libuv's thread
 * pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which file reads use too: without
 * the bound, a flood of logins would hold every thread and stall the serving of files.
 */
export class ScryptPasswordHasher {
  readonly #pool: BoundedPool;
  readonly #params: ScryptParams;
  // Verified against when there is no usable hash (unknown or disabled user, no password set), so
  // that such a login costs what a real one does. No password derives this key.
  readonly #dummy: Encoded;

  /** `params`: the current parameters by default (tests of other things take cheaper ones). */
  constructor(options: { concurrency: number; queueLimit: number; params?: ScryptParams }) {
    this.#pool = new BoundedPool({ ...options, retryAfterSeconds: 1 });
    this.#params = options.params ?? currentParams;
    this.#dummy = { ...this.#params, salt: Buffer.alloc(saltLength), key: Buffer.alloc(keyLength) };
  }

  hash(plain: string): Promise<string> {
    return this.#pool.run(() => hashPassword(plain, this.#params));
  }

  /** One scrypt computation whatever `encoded` is: null or unusable costs the same and is not valid. */
  async verify(plain: string, encoded: string | null): Promise<Verification> {
    const stored = encoded === null ? null : parse(encoded);
    const against = stored ?? this.#dummy;
    const key = await this.#pool.run(() => derive(plain, against.salt, against, against.key.length));
    const valid = stored !== null && timingSafeEqual(key, stored.key);
    return { valid, outdated: valid && !this.#isCurrent(stored) };
  }

  #isCurrent(hash: Encoded): boolean {
    const params = this.#params;
    return hash.N === params.N && hash.r === params.r && hash.p === params.p && hash.key.length === keyLength;
  }
}
