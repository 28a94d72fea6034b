import type { FastifyInstance } from 'fastify';
import type { Dashboard } from '../../content/documents/operations/dashboard.js';
import type { Principal } from '../../core/principal.js';

/** The admin home screen's dashboard of the signed-in user: one request for every section. */
export function registerDashboardRoutes(
  app: FastifyInstance,
  deps: { dashboard: (principal: Principal, query: Readonly<Record<string, unknown>>) => Promise<Dashboard> },
): void {
  app.get('/api/v1/@cms/dashboard', async (request, reply) =>
    reply.headers({ 'cache-control': 'no-store' }).send(await deps.dashboard(request.principal, request.query as Record<string, unknown>)),
  );
}
