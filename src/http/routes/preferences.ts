import type { FastifyInstance } from 'fastify';
import type { UserPreferences } from '../../content/preferences/user-preferences.js';

/** The signed-in user's admin preferences: read whole (`GET`), changed in part (`PATCH`). */
export function registerPreferencesRoutes(app: FastifyInstance, deps: { preferences: UserPreferences }): void {
  app.get('/api/v1/@cms/preferences', async (request, reply) =>
    reply.headers({ 'cache-control': 'no-store' }).send(await deps.preferences.read(request.principal)),
  );
  app.patch('/api/v1/@cms/preferences', async (request, reply) =>
    reply.headers({ 'cache-control': 'no-store' }).send(await deps.preferences.update(request.principal, request.body)),
  );
}
