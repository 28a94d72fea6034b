import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords as authenticator apps make them (RFC 6238 over RFC 4226 HOTP):
 * HMAC-SHA-1, 6 digits, 30-second steps, secrets shown in base32 (RFC 4648, no padding).
 */
export const totpDigits = 6;
export const totpStepSeconds = 30;
/** Codes of one step before and after the current one are taken too: clocks drift, people type slowly. */
export const totpWindow = 1;

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** Spaces, case and padding are forgiven, as apps show secrets in groups; null for any other character. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = alphabet.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), in base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** RFC 4226's HOTP of `counter`, `digits` long, with the HMAC `algorithm` (RFC 6238's vectors use sha256/sha512 too). */
export function hotp(key: Buffer, counter: number, digits = totpDigits, algorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(binary).padStart(digits, '0');
}

/** The step a moment falls in. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / totpStepSeconds);
}

/**
 * The step whose code `code` is, within the window around `nowMs`, or null. Steps at or before
 * `afterStep` are refused: a code that signed someone in once does not do it again.
 */
export function matchTotp(secret: string, code: string, nowMs: number, afterStep = -1): number | null {
  const key = base32Decode(secret);
  if (key === null || !/^\d{6}$/.test(code)) return null;
  const current = totpStep(nowMs);
  let found: number | null = null;
  // Every step of the window is computed, whatever matches, so the time taken tells nothing.
  for (let step = current - totpWindow; step <= current + totpWindow; step++) {
    const same = timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code));
    if (same && step > afterStep && found === null) found = step;
  }
  return found;
}

/** The `otpauth://` URI authenticator apps read (as a QR code or pasted): Key Uri Format. */
export function otpauthUrl(args: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(args.issuer)}:${encodeURIComponent(args.account)}`;
  const query = new URLSearchParams({
    secret: args.secret,
    issuer: args.issuer,
    algorithm: 'SHA1',
    digits: String(totpDigits),
    period: String(totpStepSeconds),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}
