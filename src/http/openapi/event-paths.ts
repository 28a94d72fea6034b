import { responses, security, type Operation } from './operations.js';

const listParameter = (name: string, description: string) => ({
  name,
  in: 'query',
  schema: { type: 'string', minLength: 1, maxLength: 2_000 },
  description: `${description}; several comma-separated, or the parameter repeated`,
});

/** The route of `routes/events.ts`: the change stream. */
export function eventPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/events': {
      get: {
        tags: ['@cms/events'],
        operationId: 'changeStream',
        summary: 'The committed changes as server-sent events',
        description: [
          'A `text/event-stream`: one event per committed change, `id:` its place in the change log (increasing in commit order),',
          '`event:` the action (`insert`, `update`, `publish`, `unpublish`, `archive`, `restore`, `delete`, `localize`), `data:`',
          'a JSON object `{ type, _id, cmsDocId, cmsLocale, cmsMode, updatedAt, updatedBy }`. Each caller hears only of the versions it may',
          'read: anonymous callers, published versions of types with a public projection, without `updatedBy` unless it is projected.',
          'Reconnecting with `Last-Event-ID` (or `lastEventId`) sends what was missed; an id older than the change log keeps (or unknown)',
          'gets an event `resync` with `data: { latest }`. A comment line comes every `limits.eventStreamHeartbeat`; the stream ends',
          'after `limits.eventStreamLifetime`. With `presence=true`, callers who may read a type\'s drafts also get `event: presence`',
          '(no `id:`) with `data: { type, cmsDocId, cmsLocale, present: [{ _id, title, state, since }] }` for each document whose people',
          'changed, and one per document someone is on as the stream opens (`POST /api/v1/@cms/presence`).',
        ].join(' '),
        security: security({ anonymous: true, write: false }),
        parameters: [
          listParameter('type', 'Only changes of these piece types'),
          listParameter('cmsLocale', 'Only changes of versions in these locales'),
          listParameter('cmsMode', 'Only changes of versions in these modes (`draft`, `published`)'),
          listParameter('_id', 'Only changes of these versions (`_id`) or documents (`cmsDocId`)'),
          { name: 'presence', in: 'query', schema: { enum: ['true', 'false'] }, description: 'Also tell who is on which document (`event: presence`)' },
          { name: 'lastEventId', in: 'query', schema: { type: 'string', pattern: '^[0-9]{1,15}$' }, description: 'As the `Last-Event-ID` header, for clients that cannot send it' },
          { name: 'Last-Event-ID', in: 'header', schema: { type: 'string', pattern: '^[0-9]{1,15}$' }, description: 'The `id:` of the last event received' },
        ],
        responses: responses(
          {
            200: {
              description: 'The stream; it stays open until the lifetime ends or the client leaves',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
          [429],
          false,
        ),
      },
    },
  };
}
