import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import { credentialLifetimeSeconds, type StartedSession } from '../auth/token-service.js';

/** The names of the two cookies: the HttpOnly session id, and the CSRF token scripts of the page may read. */
interface CookieNames {
  readonly session: string;
  readonly csrf: string;
}

/** Over plain http (development, or TLS ended before this server without `baseUrl` saying https). */
const plainCookies: CookieNames = { session: 'cms.sid', csrf: 'cms.csrf' };
/**
 * Over https. Browsers take a `__Host-` cookie only when it is Secure, has Path=/ and no Domain,
 * and only from a secure origin: no subdomain and no plain-http page can set or shadow it.
 */
const hostCookies: CookieNames = { session: '__Host-cms.sid', csrf: '__Host-cms.csrf' };

/** Whether the server is reached over https, directly or as `baseUrl` says (TLS ended by a proxy). */
export function isSecure(request: FastifyRequest, baseUrl: string): boolean {
  return request.protocol === 'https' || /^https:/i.test(baseUrl);
}

/**
 * SameSite=Strict: the admin is a page of this origin calling this origin, so no cross-site
 * request ever needs the session, and Strict keeps even top-level cross-site navigations from
 * carrying it.
 */
function cookieOptions(secure: boolean, httpOnly: boolean): CookieSerializeOptions {
  return { path: '/', sameSite: 'strict', secure, httpOnly, maxAge: credentialLifetimeSeconds };
}

/**
 * The session id the request carries. Both names are read, the `__Host-` one first: a browser
 * may still hold the plain cookie from before the server was reached over https.
 */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies[hostCookies.session] || request.cookies[plainCookies.session] || undefined;
}

/** Sets (or, for a renewed session, sets again) both cookies for the session's whole life. */
export function setSessionCookies(reply: FastifyReply, session: StartedSession, baseUrl: string): void {
  const secure = isSecure(reply.request, baseUrl);
  const names = secure ? hostCookies : plainCookies;
  reply.setCookie(names.session, session.sessionId, cookieOptions(secure, true));
  reply.setCookie(names.csrf, session.csrfToken, cookieOptions(secure, false));
}

/** Expires both cookies in the browser: those of the current scheme, and the others if the request carries them. */
export function clearSessionCookies(reply: FastifyReply, baseUrl: string): void {
  const { request } = reply;
  const secure = isSecure(request, baseUrl);
  const pairs: [CookieNames, boolean][] = [[secure ? hostCookies : plainCookies, secure]];
  if (secure && request.cookies[plainCookies.session] !== undefined) pairs.push([plainCookies, true]);
  // A `__Host-` cookie must be Secure even to be expired.
  if (!secure && request.cookies[hostCookies.session] !== undefined) pairs.push([hostCookies, true]);
  for (const [names, secureCookie] of pairs) {
    const { maxAge: _, ...options } = cookieOptions(secureCookie, true);
    reply.clearCookie(names.session, options);
    reply.clearCookie(names.csrf, { ...options, httpOnly: false });
  }
}
