import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';
import { auditActions } from '../../core/audit.js';
import { jsonResponse, responses, security, type Operation } from './operations.js';
import { maxCursorLength } from '../../content/query/list-cursor.js';

const nullableString = { type: ['string', 'null'] };

/** The components of `routes/audit.ts`: one audit record. */
export const auditComponents: Record<string, JsonSchema> = {
  AuditRecord: {
    type: 'object',
    description: 'Who did what, when, from where, to which documents. Never a credential nor content.',
    required: ['id', 'at', 'actor', 'address', 'requestId', 'action', 'type', 'ids', 'detail'],
    properties: {
      id: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      actor: {
        type: 'object',
        required: ['kind', '_id', 'username', 'title', 'role'],
        properties: {
          kind: { enum: ['anonymous', 'apiKey', 'user', 'cli'] },
          _id: { ...nullableString, description: "A user's `_id`, or a stored API key's id; null for a configured key, the command line and anonymous callers" },
          username: nullableString,
          title: nullableString,
          role: nullableString,
        },
      },
      address: { ...nullableString, description: "The client's address; null from the command line" },
      requestId: { ...nullableString, description: "The HTTP request's id, as in the server's log" },
      action: { type: 'string', description: `One of ${auditActions.map((action) => `\`${action}\``).join(', ')}` },
      type: { ...nullableString, description: 'The piece type of a document action' },
      ids: { type: 'array', items: { type: 'string' }, description: 'The cmsDocId and version _id of a document action; a user, key, attachment or delivery id' },
      detail: { type: ['object', 'null'] },
    },
  },
};

const filter = (name: string, description: string) => ({ name, in: 'query', schema: { type: 'string', minLength: 1, maxLength: 200 }, description });
const time = (name: string, description: string) => ({ name, in: 'query', schema: { type: 'string', format: 'date-time' }, description });

/** The admin-only, read-only route of `routes/audit.ts`. */
export function auditPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/audit': {
      get: {
        tags: ['@cms/audit'],
        operationId: 'auditRecords',
        summary: 'The audit trail, newest first, a page at a time',
        description: 'Admins only: every other caller, anonymous ones too, gets 403. Append-only: no route writes it.',
        security: security({ anonymous: false, write: false }),
        parameters: [
          filter('actor', "A user's `_id` or username, or a stored API key's id"),
          filter('type', 'A piece type'),
          filter('action', 'An action, such as `document.publish` or `login.failed`'),
          time('since', 'Records at or after this ISO 8601 time'),
          time('until', 'Records before this ISO 8601 time'),
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
          { name: 'perPage', in: 'query', schema: { type: 'integer', minimum: 1, default: 50 }, description: 'At most 100 (more is taken as 100)' },
          {
            name: 'cursor',
            in: 'query',
            schema: { type: 'string', maxLength: maxCursorLength },
            description: 'A previous answer\'s `nextCursor`: the records older than its page\'s last, with the same filters. Not with `page`.',
          },
        ],
        responses: responses(
          {
            200: jsonResponse('', {
              type: 'object',
              required: ['pages', 'currentPage', 'nextCursor', 'results'],
              properties: {
                pages: { type: 'integer', minimum: 0 },
                currentPage: { type: 'integer', minimum: 1 },
                nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last.' },
                results: { type: 'array', items: ref('AuditRecord') },
              },
            }),
          },
          [],
          false,
        ),
      },
    },
  };
}
