import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../../auth/token-service.js';
import { objectBody } from '../schemas.js';

/** The original's login routes: bearer tokens for users. */
export function registerAuthRoutes(app: FastifyInstance, deps: { tokens: TokenService }): void {
  const base = '/api/v1/@cms/login';
  app.post(`${base}/login`, { schema: { body: objectBody } }, (request) =>
    deps.tokens.login(request.body as Record<string, unknown>, { address: request.ip }),
  );
  app.post(`${base}/logout`, async (request, reply) => {
    await deps.tokens.logout(request.principal, request.bearerToken);
    return reply.code(200).send();
  });
  app.get(`${base}/whoami`, async (request) => deps.tokens.whoami(request.principal));
  app.post(`${base}/whoami`, async (request) => deps.tokens.whoami(request.principal));
}
