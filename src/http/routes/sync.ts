import type { FastifyInstance } from 'fastify';
import type { DocumentOperations } from '../../content/documents/document-operations.js';
import { allTypesRoute } from '../../content/documents/operations/sync.js';
import { listQuery } from '../schemas.js';
import { callerOf } from '../caller.js';

/** Each caller's own answer, changing with every write: never kept, here or on the way. */
const privateAnswer = { 'cache-control': 'private, no-store' };

/**
 * The sync API: `GET /api/v1/<type>/sync` and `GET /api/v1/@cms/sync` (every type the caller
 * may read). A static `sync` segment wins over the piece routes' `/:_id` in Fastify's router,
 * whatever the order they are registered in, so no document id can shadow it.
 */
export function registerSyncRoutes(app: FastifyInstance, deps: { documents: DocumentOperations; typeNames: Iterable<string> }): void {
  for (const route of [allTypesRoute, ...deps.typeNames]) {
    app.get(`/api/v1/${route}/sync`, { schema: { querystring: listQuery } }, async (request, reply) => {
      const answer = await deps.documents.sync(callerOf(request), route, request.query as Record<string, unknown>);
      return reply.headers(privateAnswer).send(answer);
    });
  }
}
