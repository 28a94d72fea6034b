import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import { credentialLifetimeSeconds, type StartedSession } from '../auth/token-service.js';

/** The HttpOnly cookie holding the session id. */
export const sessionCookie = 'cms.sid';
/** A cookie scripts of the page may read: the session's CSRF token, for the `X-CSRF-Token` header. */
export const csrfCookie = 'cms.csrf';

/**
 * SameSite=Strict: the admin is a page of this origin calling this origin, so no cross-site
 * request ever needs the session, and Strict keeps even top-level cross-site navigations from
 * carrying it. Secure whenever the server is reached over https (directly or as `baseUrl` says).
 */
function cookieOptions(request: FastifyRequest, baseUrl: string, httpOnly: boolean): CookieSerializeOptions {
  const secure = request.protocol === 'https' || /^https:/i.test(baseUrl);
  return { path: '/', sameSite: 'strict', secure, httpOnly, maxAge: credentialLifetimeSeconds };
}

export function setSessionCookies(reply: FastifyReply, session: StartedSession, baseUrl: string): void {
  const { request } = reply;
  reply.setCookie(sessionCookie, session.sessionId, cookieOptions(request, baseUrl, true));
  reply.setCookie(csrfCookie, session.csrfToken, cookieOptions(request, baseUrl, false));
}

/** Expires both cookies in the browser. */
export function clearSessionCookies(reply: FastifyReply, baseUrl: string): void {
  const { request } = reply;
  const { maxAge: _, ...options } = cookieOptions(request, baseUrl, true);
  reply.clearCookie(sessionCookie, options);
  reply.clearCookie(csrfCookie, { ...options, httpOnly: false });
}
