import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';
import { jsonResponse, responses, security, type Operation } from './operations.js';

const string = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const status = { enum: ['pending', 'delivered', 'failed'] };

/** The components of `routes/webhooks.ts`: the configured endpoints and their deliveries. */
export const webhookComponents: Record<string, JsonSchema> = {
  WebhookEndpoint: {
    type: 'object',
    description: 'A configured endpoint, never its secret, with its deliveries counted by status.',
    required: ['name', 'url', 'types', 'events', 'deliveries'],
    properties: {
      name: string,
      url: string,
      types: { anyOf: [{ const: '*' }, { type: 'array', items: string }] },
      events: { type: 'array', items: string },
      deliveries: {
        type: 'object',
        required: ['pending', 'delivered', 'failed'],
        properties: { pending: count, delivered: count, failed: count },
      },
    },
  },
  WebhookDelivery: {
    type: 'object',
    description: 'One event to one endpoint, and how its attempts went (the body sent is not shown).',
    required: ['id', 'eventId', 'endpoint', 'event', 'type', 'cmsDocId', 'status', 'attempts', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'createdAt', 'updatedAt'],
    properties: {
      id: { type: 'integer' },
      eventId: string,
      endpoint: string,
      event: string,
      type: string,
      cmsDocId: string,
      status,
      attempts: count,
      lastStatusCode: { type: ['integer', 'null'] },
      lastError: { type: ['string', 'null'] },
      nextAttemptAt: { anyOf: [dateTime, { type: 'null' }], description: 'Pending deliveries only' },
      createdAt: dateTime,
      updatedAt: dateTime,
    },
  },
};

const tags = ['@cms/webhook'];
const admin = security({ anonymous: false, write: false });
const adminWrite = security({ anonymous: false, write: true });
const adminOnly = 'Admins only: every other caller, anonymous ones too, gets 403.';

/** The admin-only routes of `routes/webhooks.ts`. */
export function webhookPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/webhook': {
      get: {
        tags,
        operationId: 'webhookEndpoints',
        summary: 'The configured webhook endpoints',
        description: adminOnly,
        security: admin,
        responses: responses(
          { 200: jsonResponse('', { type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('WebhookEndpoint') } } }) },
          [],
          false,
        ),
      },
    },
    '/api/v1/@cms/webhook/deliveries': {
      get: {
        tags,
        operationId: 'webhookDeliveries',
        summary: 'Recent webhook deliveries, newest first, a page at a time',
        description: adminOnly,
        security: admin,
        parameters: [
          { name: 'status', in: 'query', schema: status },
          { name: 'endpoint', in: 'query', schema: { type: 'string', minLength: 1 } },
          { name: 'perPage', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'before', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'The `next` of the page before' },
          { name: 'cursor', in: 'query', schema: { type: 'string', pattern: '^[0-9]{1,16}$' }, description: 'The `nextCursor` of the page before (the same as `before`; not with it)' },
        ],
        responses: responses(
          {
            200: jsonResponse('`next` and `nextCursor` are null on the last page.', {
              type: 'object',
              required: ['results', 'next', 'nextCursor'],
              properties: { results: { type: 'array', items: ref('WebhookDelivery') }, next: { type: ['integer', 'null'] }, nextCursor: { type: ['string', 'null'] } },
            }),
          },
          [],
          false,
        ),
      },
    },
    '/api/v1/@cms/webhook/deliveries/{id}/retry': {
      post: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Try a failed delivery again, from its first attempt',
        description: adminOnly,
        security: adminWrite,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]*$' } }],
        responses: responses({ 200: jsonResponse('The delivery, now pending.', ref('WebhookDelivery')) }, [404, 409], true),
      },
    },
  };
}
