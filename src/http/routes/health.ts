import type { FastifyInstance } from 'fastify';

/** What readiness needs of the store: whether it answers (the store adapter is one). */
export interface Pingable {
  ping(): Promise<boolean>;
}

/** Readiness: 200 once the store answers, 503 while it does not. No authentication. */
export function registerHealthRoute(app: FastifyInstance, deps: { storage: Pingable }): void {
  app.get('/health', async (_request, reply) => {
    const ready = await deps.storage.ping().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable' });
  });
}
