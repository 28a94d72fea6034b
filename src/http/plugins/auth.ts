import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anonymous, type Principal } from '../../core/principal.js';
import type { ApiKeys } from '../../auth/api-keys.js';
import type { TokenService } from '../../auth/token-service.js';
import { ForbiddenError, UnauthorizedError } from '../../errors/app-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    bearerToken: string | null;
  }
}

/**
 * Resolves who is asking before any route runs: an API key (`apikey`/`apiKey` query parameter or
 * `Authorization: ApiKey <key>`), a bearer token (`Authorization: Bearer <token>`), or nobody.
 * A key or token that is presented but wrong is refused outright rather than treated as anonymous.
 */
export function registerAuth(app: FastifyInstance, deps: { apiKeys: ApiKeys; tokens: TokenService }): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('bearerToken', null);
  app.addHook('onRequest', async (request) => {
    request.principal = anonymous;
    const credentials = credentialsOf(request);
    if (credentials.apiKey !== undefined) {
      const principal = deps.apiKeys.principalFor(credentials.apiKey);
      if (!principal) throw new ForbiddenError('invalid api key');
      request.principal = principal;
    } else if (credentials.bearer !== undefined) {
      const principal = await deps.tokens.principalFor(credentials.bearer);
      if (!principal) throw new UnauthorizedError('bearer token invalid');
      request.principal = principal;
      request.bearerToken = credentials.bearer;
    }
  });
  app.addHook('onSend', async (request, reply) => {
    // Responses that depend on who asks are not cached; a route that knows better (files) says so itself.
    if (request.method === 'GET' && request.principal.kind !== 'anonymous' && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
  });
}

function credentialsOf(request: FastifyRequest): { apiKey?: string; bearer?: string } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const fromQuery = query.apikey ?? query.apiKey;
  if (typeof fromQuery === 'string') return { apiKey: fromQuery };
  if (fromQuery !== undefined) return { apiKey: '' };
  const header = request.headers.authorization;
  if (typeof header !== 'string') return {};
  const match = /^(\S+)\s+(.+)$/.exec(header.trim());
  if (!match) return {};
  const scheme = match[1]!.toLowerCase();
  if (scheme === 'apikey') return { apiKey: match[2]! };
  if (scheme === 'bearer') return { bearer: match[2]! };
  return {};
}
