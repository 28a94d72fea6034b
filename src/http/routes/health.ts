import type { FastifyInstance } from 'fastify';
import { StoreUnavailableError } from '../../errors/app-error.js';

/** What readiness needs of the store: whether it answers (the store adapter is one). */
export interface Pingable {
  ping(): Promise<boolean>;
  /** Each connection of a store with several (a primary and its read replicas): up or down, lag, reads served. */
  connections?(): Promise<readonly object[]>;
}

/**
 * Readiness, `/health`: 200 while the store answers; while it does not (a database restart),
 * 503 with Retry-After in the one error shape, so that a load balancer takes the process out
 * until it answers again. A store with read replicas lists each connection too (`connections`):
 * a replica down or lagging leaves the process ready, its reads going to the primary. Liveness, `/health/live`: 200 while the process serves, whatever the
 * store does, for a supervisor that restarts a process (restarting it would not bring a
 * database back). No authentication.
 */
export function registerHealthRoute(app: FastifyInstance, deps: { storage: Pingable }): void {
  app.get('/health', async (_request, reply) => {
    const ready = await deps.storage.ping().catch(() => false);
    if (!ready) throw new StoreUnavailableError('The database does not answer; try again shortly.');
    if (!deps.storage.connections) return reply.send({ status: 'ok', store: 'ok' });
    return reply.send({ status: 'ok', store: 'ok', connections: await deps.storage.connections() });
  });
  app.get('/health/live', async (_request, reply) => reply.send({ status: 'ok' }));
}
