import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../core/principal.js';
import { NotFoundError } from '../errors/app-error.js';
import { unknownPieceType } from '../content/types/unknown-type.js';

/** `article` or `@cms/image`: the module a path under `/api/v1/` names; null for any other path. */
export function moduleOfPath(path: string): string | null {
  return /^\/api\/v1\/(@[^/?#]+\/[^/?#]+|[^/?#@][^/?#]*)/.exec(path)?.[1] ?? null;
}

/**
 * Tells a 404 under `/api/v1/<name>` whose name no route serves (a mistyped piece type) from any
 * other 404: the first names the piece types the caller may read. The modules the routes serve
 * are collected as they are registered, so this must be set up before them.
 */
export function unknownTypeExplainer(
  app: FastifyInstance,
  readableTypes: (principal: Principal) => readonly string[],
): (request: FastifyRequest) => NotFoundError {
  const served = new Set<string>();
  app.addHook('onRoute', (route) => {
    const name = moduleOfPath(route.url);
    if (name !== null) served.add(name);
  });
  return (request) => {
    const name = moduleOfPath(request.url);
    if (name === null || served.has(name)) return new NotFoundError();
    // Before the auth hook ran (a refusal of the request line itself) nobody is known yet.
    const knownTypes = request.principal ? readableTypes(request.principal) : [];
    return unknownPieceType(name, knownTypes);
  };
}
