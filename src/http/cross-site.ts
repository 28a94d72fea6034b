import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ForbiddenError } from '../errors/app-error.js';
import { csrfTokenFor } from '../auth/token-service.js';

/** The header a cookie-authenticated write carries its session's CSRF token in. */
export const csrfHeader = 'x-csrf-token';

/** Methods that change nothing, so a forged one does no harm (the original's list). */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function isUnsafe(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

/** This server's origin: that of an absolute `baseUrl`, else the scheme and Host the request came with. */
export function ownOrigin(request: FastifyRequest, baseUrl: string): string {
  const own = /^https?:\/\//i.test(baseUrl) ? baseUrl : `${request.protocol}://${request.host}`;
  // A Host header no URL can be made of matches no origin a browser sends.
  return URL.canParse(own) ? new URL(own).origin : 'unknown';
}

/** The origin the browser says the request comes from (`Origin`, else `Referer`); undefined when it says none. */
export function claimedOrigin(request: FastifyRequest): string | undefined {
  const { origin, referer } = request.headers;
  const claim = typeof origin === 'string' ? origin : referer;
  if (claim === undefined) return undefined;
  // `Origin: null` (sandboxed frames, some redirects) and unparsable values name no origin of ours.
  return URL.canParse(claim) ? new URL(claim).origin : 'null';
}

/** Refuses (403) a request whose `Origin` or `Referer` names another origin; one naming none passes. */
export function refuseForeignOrigin(request: FastifyRequest, baseUrl: string): void {
  const claimed = claimedOrigin(request);
  if (claimed !== undefined && claimed !== ownOrigin(request, baseUrl)) {
    throw new ForbiddenError('CSRF check failed: the request comes from another origin.');
  }
}

/**
 * Double submit: the session's CSRF token must come back in the `X-CSRF-Token` header, which
 * another site can neither read nor set on a request that carries this site's cookie.
 */
export function refuseMissingCsrfToken(request: FastifyRequest, sessionId: string): void {
  const sent = request.headers[csrfHeader];
  const expected = Buffer.from(csrfTokenFor(sessionId));
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ForbiddenError('CSRF check failed: the X-CSRF-Token header is missing or wrong.');
  }
}
