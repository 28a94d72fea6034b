import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anonymous, type Principal } from '../../core/principal.js';
import type { ApiKeys } from '../../auth/api-keys.js';
import type { TokenService } from '../../auth/token-service.js';
import { ForbiddenError, UnauthorizedError } from '../../errors/app-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    bearerToken: string | null;
    /** Who is asking, for per-caller budgets: `user:<id>`, `key:<SHA-256 of the key>`, or null when anonymous. */
    callerId: string | null;
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
  app.decorateRequest('callerId', null);
  app.addHook('onRequest', async (request) => {
    request.principal = anonymous;
    request.callerId = null;
    const credentials = credentialsOf(request);
    if (credentials.apiKey !== undefined) {
      const principal = deps.apiKeys.principalFor(credentials.apiKey);
      if (!principal) throw new ForbiddenError('invalid api key');
      request.principal = principal;
      // A digest: the key itself never sits in memory longer than the request needs it.
      request.callerId = `key:${createHash('sha256').update(credentials.apiKey).digest('hex')}`;
    } else if (credentials.bearer !== undefined) {
      const principal = await deps.tokens.principalFor(credentials.bearer);
      if (!principal) throw new UnauthorizedError('bearer token invalid');
      request.principal = principal;
      request.bearerToken = credentials.bearer;
      request.callerId = `user:${principal.userId}`;
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
