import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../core/principal.js';
import { NotFoundError } from '../errors/app-error.js';

/** `article` or `@cms/image`: the module a path under `/api/v1/` names; null for any other path. */
export function moduleOfPath(path: string): string | null {
  return /^\/api\/v1\/(@[^/?#]+\/[^/?#]+|[^/?#@][^/?#]*)/.exec(path)?.[1] ?? null;
}

// The name is the client's text: shown short, so the known types still fit in the message.
const shownNameLength = 60;

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
    const shown = name.length > shownNameLength ? `${name.slice(0, shownNameLength)}…` : name;
    return new NotFoundError(`There is no piece type "${shown}"; the known types are: ${knownTypes.join(', ') || 'none'}`, { knownTypes });
  };
}
