import type { FastifyInstance } from 'fastify';
import type { StorageAdapter } from '../../storage/storage-adapter.js';

/** Readiness: 200 once the store answers, 503 while it does not. No authentication. */
export function registerHealthRoute(app: FastifyInstance, deps: { storage: StorageAdapter }): void {
  app.get('/health', async (_request, reply) => {
    const ready = await deps.storage.ping().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable' });
  });
}
