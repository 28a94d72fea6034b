import type { FastifyInstance } from 'fastify';
import type { WebhookAdmin } from '../../content/webhooks/webhook-admin.js';
import { originOf } from '../caller.js';

/** The admin-only view of the webhooks: endpoints, recent deliveries, a retry of a failed one. */
export function registerWebhookRoutes(app: FastifyInstance, deps: { webhooks: WebhookAdmin }): void {
  const { webhooks } = deps;
  const base = '/api/v1/@cms/webhook';
  const noStore = { 'cache-control': 'no-store' };
  app.get(base, async (request, reply) => reply.headers(noStore).send(await webhooks.endpoints(request.principal)));
  app.get(`${base}/deliveries`, async (request, reply) =>
    reply.headers(noStore).send(await webhooks.deliveries(request.principal, request.query as Record<string, unknown>)),
  );
  app.post(`${base}/deliveries/:id/retry`, (request) => webhooks.retry({ principal: request.principal, origin: originOf(request) }, (request.params as { id: string }).id));
}
