import type { JsonSchema } from '../../content/fields/value-schema.js';
import { jsonBody, jsonResponse, responses, security, type Operation } from './operations.js';

const presentEditor: JsonSchema = {
  type: 'object',
  required: ['_id', 'title', 'state', 'since'],
  additionalProperties: false,
  properties: {
    _id: { type: 'string', description: 'The user' },
    title: { type: 'string', description: 'Their name' },
    state: { enum: ['viewing', 'editing'], description: '`editing` while one of their tabs holds the lock' },
    since: { type: 'string', format: 'date-time', description: 'Since when they have the document open' },
  },
};

/** The routes of `routes/presence.ts`: who has which document open. */
export function presencePaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/presence': {
      post: {
        tags: ['@cms/events'],
        operationId: 'announcePresence',
        summary: 'Say which document this tab shows',
        description: [
          'A signed-in user\'s tab is on one document at a time: a second announce from the tab moves it. The presence lapses after',
          '`limits.presenceTtl` unless announced again (the answer\'s `expiresIn`; the admin renews a third of the way). Others who may',
          'read the type\'s drafts hear it on their event streams opened with `presence=true` (`event: presence`). Needs a user',
          '(a session or a bearer token): an API key is refused with 403.',
        ].join(' '),
        security: security({ anonymous: false, write: true }),
        requestBody: jsonBody({
          type: 'object',
          required: ['type', 'cmsDocId', 'state', 'tabId'],
          properties: {
            type: { type: 'string' },
            cmsDocId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' },
            cmsLocale: { type: ['string', 'null'], description: 'Required for a localized type' },
            state: { enum: ['viewing', 'editing'] },
            tabId: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$', description: 'Chosen by the tab, kept while it is open' },
          },
        }),
        responses: responses(
          {
            200: jsonResponse('Who else is on the document, and in how many milliseconds this presence lapses', {
              type: 'object',
              required: ['present', 'expiresIn'],
              additionalProperties: false,
              properties: { present: { type: 'array', items: presentEditor }, expiresIn: { type: 'integer' } },
            }),
          },
          [404, 429],
          true,
        ),
      },
    },
    '/api/v1/@cms/presence/{tabId}': {
      delete: {
        tags: ['@cms/events'],
        operationId: 'leavePresence',
        summary: 'Say this tab left its document',
        description: 'Sent as a tab leaves a document or closes (the admin sends it with `keepalive`). Nothing to leave is no error.',
        security: security({ anonymous: false, write: true }),
        parameters: [{ name: 'tabId', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' } }],
        responses: responses({ 204: { description: 'The tab is on no document' } }, [], true),
      },
    },
  };
}

