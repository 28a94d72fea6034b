import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../../auth/token-service.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { objectBody } from '../schemas.js';
import { originOf } from '../caller.js';
import { refuseForeignOrigin } from '../cross-site.js';
import { clearSessionCookies, setSessionCookies } from '../session-cookies.js';

/**
 * The original's login routes: bearer tokens for users, or with `session: true` a session kept
 * in an HttpOnly cookie, answered with the CSRF token the session's writes must carry.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: { tokens: TokenService; baseUrl: string }): void {
  const base = '/api/v1/@cms/login';
  // No CSRF token yet, but a session login is checked for its origin so that no other site can
  // sign a browser into an account of its choosing.
  app.post(`${base}/login`, { schema: { body: objectBody }, config: { csrfToken: false } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const client = { address: request.ip, requestId: request.id };
    if (body.session !== undefined && typeof body.session !== 'boolean') throw new InvalidRequestError('session must be true or false.');
    if (body.session !== true) return deps.tokens.login(body, client);
    refuseForeignOrigin(request, deps.baseUrl);
    const session = await deps.tokens.startSession(body, client);
    setSessionCookies(reply, session, deps.baseUrl);
    return { csrfToken: session.csrfToken };
  });
  app.post(`${base}/logout`, async (request, reply) => {
    await deps.tokens.logout(request.principal, request.credential, originOf(request));
    if (request.credential?.kind === 'session') clearSessionCookies(reply, deps.baseUrl);
    return reply.code(200).send();
  });
  app.get(`${base}/whoami`, async (request) => deps.tokens.whoami(request.principal, request.credential));
  app.post(`${base}/whoami`, async (request) => deps.tokens.whoami(request.principal, request.credential));
}
