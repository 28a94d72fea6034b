import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const params = { N: 16384, r: 8, p: 1 } as const;
const keyLength = 64;
const saltLength = 16;

function derive(plain: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  // Room for the memory scrypt needs (128 * N * r bytes) plus slack.
  const maxmem = 128 * (options.N ?? 0) * (options.r ?? 0) * (options.p ?? 1) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(plain, salt, length, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$saltB64$hashB64`. */
export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(saltLength);
  const key = await derive(plain, salt, params, keyLength);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface Encoded {
  readonly N: number;
  readonly r: number;
  readonly p: number;
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

export async function verifyPassword(plain: string, encoded: string): Promise<boolean> {
  const parsed = typeof encoded === 'string' ? parse(encoded) : null;
  if (!parsed) return false;
  const key = await derive(plain, parsed.salt, { N: parsed.N, r: parsed.r, p: parsed.p }, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}
