import type { AppConfig } from '../../content/app-config.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { anyDocumentComponent, type DocumentSchemas } from './document-schemas.js';
import { ref } from './component-names.js';
import { jsonResponse, responses, security, type Operation } from './operations.js';
import { filterParameters, versionParameters } from './piece-paths.js';

export const syncComponents: Record<string, JsonSchema> = {
  Tombstone: {
    type: 'object',
    description: 'A version the caller could read that it no longer can: `deleted`, `unpublished`, `archived`, or `hidden` (no longer visible to it, or no longer matching the filters).',
    required: ['type', '_id', 'cmsDocId', 'cmsLocale', 'deletedAt', 'reason'],
    additionalProperties: false,
    properties: {
      type: { type: 'string' },
      _id: { type: 'string' },
      cmsDocId: { type: 'string' },
      cmsLocale: { type: ['string', 'null'] },
      deletedAt: { type: 'string', format: 'date-time' },
      reason: { enum: ['deleted', 'unpublished', 'archived', 'hidden'] },
    },
  },
};

const syncParameters = [
  { name: 'syncToken', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 2_000 }, description: 'The `nextPageToken` or `nextSyncToken` of the last answer; none: from scratch' },
  { name: 'limit', in: 'query', schema: { type: 'string', pattern: '^[0-9]{1,6}$' }, description: 'Documents and tombstones in one answer, 1 to `limits.syncPageMax` (1,000); 100 by default' },
];

/** One sync answer, of versions described by `item`. */
function syncAnswerOf(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['items', 'deleted'],
    additionalProperties: false,
    properties: {
      items: { type: 'array', items: item },
      deleted: { type: 'array', items: ref('Tombstone') },
      nextPageToken: { type: 'string', description: 'More waits: call again with it as `syncToken`' },
      nextSyncToken: { type: 'string', description: 'Caught up: keep it, and call with it later for what changed since' },
    },
  };
}

const description = [
  'Without `syncToken`: every version the caller may read (in pages, `_id` order, the readable types one after the other), `deleted` empty.',
  'With one: what committed since, in commit order: versions as a GET answers them, and tombstones for the versions the caller could read',
  'that it no longer can. A token is bound to the caller, the route, `cmsMode`, `cmsLocale` and the filters (400 elsewhere), and',
  'answered 410 (`expired`) once the change log no longer keeps the changes after it.',
].join(' ');

/** The routes of `routes/sync.ts`: each type's sync and that of every type. */
export function syncPaths(config: AppConfig, fieldTypes: FieldTypeLookup, schemas: DocumentSchemas): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {
    '/api/v1/@cms/sync': {
      get: {
        tags: ['@cms/sync'],
        operationId: 'syncAll',
        summary: 'Every readable document, then what changed since, across types',
        description,
        security: security({ anonymous: true, write: false }),
        parameters: [...versionParameters, { name: 'type', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 2_000 }, description: 'Only these piece types, comma-separated' }, ...syncParameters],
        responses: responses({ 200: jsonResponse('One page of the sync.', syncAnswerOf(ref(anyDocumentComponent))) }, [404, 410], false),
      },
    },
  };
  for (const type of config.pieceTypes.values()) {
    const read = ref(schemas.pieceComponent(type.name, 'read')!);
    const publicComponent = schemas.pieceComponent(type.name, 'public');
    const item = publicComponent ? { anyOf: [read, ref(publicComponent)] } : read;
    paths[`/api/v1/${type.name}/sync`] = {
      get: {
        tags: [type.name],
        operationId: `sync${schemas.pieceNames.get(type.name)}`,
        summary: `Every readable ${type.options.label}, then what changed since`,
        description,
        security: security({ anonymous: publicComponent !== null, write: false }),
        parameters: [...versionParameters, ...syncParameters, ...filterParameters(type, fieldTypes)],
        responses: responses({ 200: jsonResponse('One page of the sync.', syncAnswerOf(item)) }, [404, 410], false),
      },
    };
  }
  return paths;
}
