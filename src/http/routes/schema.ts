import type { FastifyInstance } from 'fastify';
import type { SchemaDescriber } from '../../content/schema/describe-schema.js';
import { matchesNoneMatch } from '../etag.js';

/**
 * `GET /api/v1/@cms/schema`: what the caller may see of the configuration, for generated admin
 * screens and other clients. The answer depends on the caller's role, so caches must revalidate
 * (`no-cache`, keyed by `Authorization`); the ETag makes that revalidation a 304.
 */
export function registerSchemaRoute(app: FastifyInstance, deps: { schema: SchemaDescriber }): void {
  app.get('/api/v1/@cms/schema', async (request, reply) => {
    const { json, digest } = deps.schema.describe(request.principal);
    const etag = `"${digest}"`;
    const shared = request.principal.kind === 'anonymous';
    void reply
      .header('etag', etag)
      .header('vary', 'Authorization')
      .header('cache-control', shared ? 'no-cache' : 'private, no-cache');
    if (matchesNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(json);
  });
}
