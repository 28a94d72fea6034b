import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { IdempotentRequest } from '../content/documents/caller.js';
import { InvalidRequestError } from '../errors/app-error.js';

/** Visible ASCII, as the header's draft (draft-ietf-httpapi-idempotency-key-header) and Stripe's keys use. */
const visibleAscii = /^[\x21-\x7e]+$/;

/**
 * The `Idempotency-Key` of a write (POST insert and actions, PATCH), with who sends it and a
 * digest of what it asks; undefined without the header. A key of 1 to `maxLength` visible ASCII
 * characters, sent once, is taken; anything else is refused with 400 before the write runs.
 */
export function idempotencyOf(request: FastifyRequest, maxLength: number): IdempotentRequest | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || header.length === 0 || header.length > maxLength || !visibleAscii.test(header)) {
    throw new InvalidRequestError(`Idempotency-Key takes one value of 1 to ${maxLength} visible ASCII characters (a UUID, say), sent once`, {
      header: 'Idempotency-Key',
    });
  }
  // Anonymous callers write nothing (403), so their scope never holds a record.
  return { scope: request.callerId ?? 'anonymous', key: header, fingerprint: fingerprintOf(request) };
}

/** The method, the path with its query, and the body as parsed: a retry sends the same bytes, so the same digest. */
function fingerprintOf(request: FastifyRequest): string {
  const body = createHash('sha256').update(JSON.stringify(request.body ?? null)).digest('base64url');
  return createHash('sha256').update(`${request.method}\n${request.url}\n${body}`).digest('base64url');
}
