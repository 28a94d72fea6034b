import type { FastifyInstance } from 'fastify';
import { StoreUnavailableError } from '../../errors/app-error.js';

/** What readiness needs of the store: whether it answers (the store adapter is one). */
export interface Pingable {
  ping(): Promise<boolean>;
  /** Each connection of a store with several (a primary and its read replicas): up or down, lag, reads served. */
  connections?(): Promise<readonly ConnectionState[]>;
}

/** One store connection as /health lists it: its name and last error name hosts of the private network. */
interface ConnectionState {
  readonly name: string;
  readonly error?: string;
}

/** A connection's state without where it is: what any caller of /health (a load balancer) sees. */
function withoutAddress<T extends ConnectionState>({ name: _name, error: _error, ...state }: T): Omit<T, 'name' | 'error'> {
  return state;
}

/**
 * Readiness, `/health`: 200 while the store answers; while it does not (a database restart),
 * 503 with Retry-After in the one error shape, so that a load balancer takes the process out
 * until it answers again. A store with read replicas lists each connection too (`connections`):
 * a replica down or lagging leaves the process ready, its reads going to the primary; which host
 * each one is, and the error it met, only to an admin. Liveness, `/health/live`: 200 while the
 * process serves, whatever the store does, for a supervisor that restarts a process (restarting
 * it would not bring a database back). No authentication.
 */
export function registerHealthRoute(app: FastifyInstance, deps: { storage: Pingable }): void {
  app.get('/health', async (request, reply) => {
    const ready = await deps.storage.ping().catch(() => false);
    if (!ready) throw new StoreUnavailableError('The database does not answer; try again shortly.');
    if (!deps.storage.connections) return reply.send({ status: 'ok', store: 'ok' });
    const connections = await deps.storage.connections();
    return reply.send({ status: 'ok', store: 'ok', connections: request.principal.role === 'admin' ? connections : connections.map(withoutAddress) });
  });
  app.get('/health/live', async (_request, reply) => reply.send({ status: 'ok' }));
}
