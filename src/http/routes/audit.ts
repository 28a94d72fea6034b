import type { FastifyInstance } from 'fastify';
import type { AuditReader } from '../../content/audit/audit-reader.js';

/**
 * The audit trail, read-only: records are written by the changes themselves, in their
 * transactions, and no route adds, changes or removes one.
 */
export function registerAuditRoutes(app: FastifyInstance, deps: { audit: AuditReader }): void {
  app.get('/api/v1/@cms/audit', async (request, reply) =>
    reply.headers({ 'cache-control': 'no-store' }).send(await deps.audit.list(request.principal, request.query as Record<string, unknown>)),
  );
}
