import type { FastifyInstance } from 'fastify';
import type { PresenceBoard } from '../../content/presence/presence-board.js';
import { InvalidRequestError } from '../../errors/app-error.js';

/**
 * An editor's tab says which document it shows (`POST`, renewed while open) and that it left
 * (`DELETE`, also sent as the tab closes); other editors hear it on their event streams
 * (`?presence=true`).
 */
export function registerPresenceRoutes(app: FastifyInstance, deps: { presence: PresenceBoard }): void {
  app.post('/api/v1/@cms/presence', async (request, reply) => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidRequestError('The body must be a JSON object');
    return reply.headers({ 'cache-control': 'no-store' }).send(await deps.presence.announce(request.principal, body as Record<string, unknown>));
  });
  app.delete<{ Params: { tabId: string } }>('/api/v1/@cms/presence/:tabId', async (request, reply) => {
    await deps.presence.leave(request.principal, request.params.tabId);
    return reply.code(204).send();
  });
}
