import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Releases } from '../../content/documents/releases.js';
import { callerOf } from '../caller.js';

/** Each caller's own answer, changing with every write: never kept, here or on the way. */
const privateAnswer = { 'cache-control': 'private, no-store' };
const base = '/api/v1/@cms/release';

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/** Releases: drafts of any types published together (content/documents/releases.ts holds every rule). */
export function registerReleaseRoutes(app: FastifyInstance, deps: { releases: Releases }): void {
  const { releases } = deps;
  app.post(base, async (request, reply) => reply.code(201).headers(privateAnswer).send(await releases.create(callerOf(request), request.body)));
  app.get(base, async (request, reply) => reply.headers(privateAnswer).send(await releases.list(callerOf(request), request.query as Record<string, unknown>)));
  app.get(`${base}/:id`, async (request, reply) => reply.headers(privateAnswer).send(await releases.get(callerOf(request), idOf(request))));
  app.patch(`${base}/:id`, async (request, reply) => reply.headers(privateAnswer).send(await releases.edit(callerOf(request), idOf(request), request.body)));
  app.delete(`${base}/:id`, async (request, reply) => reply.headers(privateAnswer).send(await releases.remove(callerOf(request), idOf(request))));
  app.post(`${base}/:id/documents`, async (request, reply) =>
    reply.headers(privateAnswer).send(await releases.changeDocuments(callerOf(request), idOf(request), request.body)),
  );
  app.post(`${base}/:id/precheck`, async (request, reply) => reply.headers(privateAnswer).send(await releases.precheck(callerOf(request), idOf(request))));
  app.post(`${base}/:id/publish`, async (request, reply) => reply.headers(privateAnswer).send(await releases.publish(callerOf(request), idOf(request))));
  app.post(`${base}/:id/revert`, async (request, reply) => reply.headers(privateAnswer).send(await releases.revert(callerOf(request), idOf(request))));
}
