import type { FastifyInstance } from 'fastify';
import type { AccountSecurity } from '../../auth/account-security.js';
import type { PasswordReset } from '../../auth/password-reset.js';
import { objectBody } from '../schemas.js';
import { originOf } from '../caller.js';

const noStore = 'private, no-store';

/**
 * Accounts that protect themselves: TOTP second factors (setup, enable, disable, status) and
 * password reset by mail (forgot, reset). Each route is one call; the rules are in `src/auth`.
 */
export function registerAccountRoutes(app: FastifyInstance, deps: { security: AccountSecurity; reset: PasswordReset }): void {
  const base = '/api/v1/@cms/login';
  const body = (request: { body: unknown }) => request.body as Record<string, unknown>;
  const client = (request: Parameters<typeof originOf>[0]) => ({ ...originOf(request), address: request.ip });
  app.get(`${base}/totp`, async (request, reply) => reply.header('cache-control', noStore).send(await deps.security.status(request.principal)));
  // A user of a role that must use TOTP has no session yet: setup and enable also take the
  // login's setupToken in the body, which no cookie carries, so it needs no CSRF token.
  app.post(`${base}/totp/setup`, { schema: { body: objectBody } }, async (request, reply) =>
    reply.header('cache-control', noStore).send(await deps.security.setup(request.principal, body(request))),
  );
  app.post(`${base}/totp/enable`, { schema: { body: objectBody } }, async (request, reply) =>
    reply.header('cache-control', noStore).send(await deps.security.enable(request.principal, body(request), originOf(request))),
  );
  app.post(`${base}/totp/disable`, { schema: { body: objectBody } }, async (request, reply) => {
    await deps.security.disable(request.principal, body(request), client(request));
    return reply.send({ totp: false });
  });
  // Nobody is signed in to ask for a reset: no CSRF token exists yet.
  app.post(`${base}/forgot`, { schema: { body: objectBody }, config: { csrfToken: false } }, async (request) => deps.reset.forgot(body(request), client(request)));
  app.post(`${base}/reset`, { schema: { body: objectBody }, config: { csrfToken: false } }, async (request) => deps.reset.reset(body(request), originOf(request)));
}
