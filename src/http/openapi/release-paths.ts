import type { AppConfig } from '../../content/app-config.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { jsonBody, jsonResponse, responses, security, type Operation } from './operations.js';

const by: JsonSchema = {
  type: ['object', 'null'],
  properties: { _id: { type: ['string', 'null'] }, title: { type: 'string' }, username: { type: ['string', 'null'] } },
};
const release: JsonSchema = {
  type: 'object',
  required: ['_id', 'title', 'publishAt', 'state', 'createdAt', 'updatedAt', 'publishedAt', 'failure'],
  properties: {
    _id: { type: 'string' },
    title: { type: 'string' },
    publishAt: { type: ['string', 'null'], format: 'date-time', description: 'When the scheduler publishes it; null: by hand only' },
    state: { enum: ['open', 'published', 'failed', 'reverted'] },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: by,
    updatedAt: { type: 'string', format: 'date-time' },
    publishedAt: { type: ['string', 'null'], format: 'date-time' },
    publishedBy: by,
    failure: { type: ['string', 'null'], description: 'Why its scheduled run failed' },
  },
};
const releaseDocument: JsonSchema = {
  type: 'object',
  required: ['_id', 'type', 'title', 'state'],
  properties: {
    _id: { type: 'string', description: 'The draft\'s `_id` (`<cmsDocId>:<locale>:draft`)' },
    type: { type: 'string' },
    title: { type: ['string', 'null'] },
    state: { enum: ['modified', 'published', 'missing'], description: '`modified`: the draft differs from the published version (or was never published); `missing`: the draft is gone' },
  },
};
const fields: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, publishAt: { type: ['string', 'null'], format: 'date-time' } },
};
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } };
const tags = ['@cms/release'];
const read = security({ anonymous: false, write: false });
const write = security({ anonymous: false, write: true });
const who = 'For whoever may publish some type (editor, admin): others are refused with 403.';

/** The routes of `routes/releases.ts`. */
export function releasePaths(config: AppConfig): Record<string, Record<string, Operation>> {
  const { releaseDocumentsPerCall, releaseMaxDocuments } = config.limits;
  const idList: JsonSchema = { type: 'array', maxItems: releaseDocumentsPerCall, items: { type: 'string', maxLength: 200, pattern: '^[^:]+:[^:]+:draft$' } };
  const action = (operationId: string, summary: string, description: string, success: Record<string, unknown>, statuses: number[]): Operation => ({
    tags, operationId, summary, description: `${who} ${description}`, security: write, parameters: [idParameter], responses: responses(success, [404, ...statuses], false),
  });
  return {
    '/api/v1/@cms/release': {
      post: {
        tags, operationId: 'createRelease', summary: 'Create a release', description: who, security: write,
        requestBody: jsonBody({ ...fields, required: ['title'] }),
        responses: responses({ 201: jsonResponse('The release', release) }, [], true),
      },
      get: {
        tags, operationId: 'listReleases', summary: 'The releases, newest first', description: `${who} \`next\`: the \`before\` of the next page.`, security: read,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
          { name: 'before', in: 'query', schema: { type: 'string', maxLength: 200 } },
        ],
        responses: responses({ 200: jsonResponse('A page of releases', { type: 'object', required: ['results', 'next'], properties: { results: { type: 'array', items: release }, next: { type: ['string', 'null'] } } }) }, [], false),
      },
    },
    '/api/v1/@cms/release/{id}': {
      get: {
        tags, operationId: 'getRelease', summary: 'A release with its documents and their states', description: who, security: read, parameters: [idParameter],
        responses: responses({ 200: jsonResponse('The release', { ...release, required: [...(release.required as string[]), 'documents'], properties: { ...(release.properties as object), documents: { type: 'array', items: releaseDocument } } }) }, [404], false),
      },
      patch: {
        tags, operationId: 'updateRelease', summary: 'Change the title or publishAt of an open or failed release', description: `${who} A failed release given a change is open again.`,
        security: write, parameters: [idParameter], requestBody: jsonBody(fields),
        responses: responses({ 200: jsonResponse('The release', release) }, [404, 409], true),
      },
      delete: action('deleteRelease', 'Remove a release that is not published', '409 for a published one (revert it first).', { 200: jsonResponse('Removed', { type: 'object', properties: { removed: { type: 'string' } } }) }, [409]),
    },
    '/api/v1/@cms/release/{id}/documents': {
      post: {
        ...action('changeReleaseDocuments', 'Add drafts to a release, or remove them',
          `Each id is a draft's \`_id\` of a type the caller may edit (404 naming \`data.missing\` otherwise). At most \`limits.releaseDocumentsPerCall\` (${releaseDocumentsPerCall}) ids per call (400), \`limits.releaseMaxDocuments\` (${releaseMaxDocuments}) per release (409).`,
          { 200: jsonResponse('Counts', { type: 'object', required: ['added', 'removed', 'count'], properties: { added: { type: 'integer' }, removed: { type: 'integer' }, count: { type: 'integer' } } }) }, [409]),
        requestBody: jsonBody({ type: 'object', additionalProperties: false, properties: { add: idList, remove: idList } }),
        responses: responses({ 200: jsonResponse('Counts', { type: 'object', required: ['added', 'removed', 'count'], properties: { added: { type: 'integer' }, removed: { type: 'integer' }, count: { type: 'integer' } } }) }, [404, 409], true),
      },
    },
    '/api/v1/@cms/release/{id}/precheck': {
      post: action('precheckRelease', 'Which documents a publish would refuse',
        'Runs the publish itself in a transaction that is rolled back: nothing changes.',
        { 200: jsonResponse('The failures', { type: 'object', required: ['ok', 'failures'], properties: { ok: { type: 'boolean' }, failures: { type: 'array', items: { type: 'object', required: ['_id', 'type', 'status', 'name', 'message'], properties: { _id: { type: 'string' }, type: { type: 'string' }, status: { type: 'string' }, name: { type: 'string' }, message: { type: 'string' } } } } } }) }, []),
    },
    '/api/v1/@cms/release/{id}/publish': {
      post: action('publishRelease', 'Publish every document of the release, all or none',
        'One transaction: the first document refused aborts it all, and its error is answered with `data._id` and `data.type` naming it. 409 when it is published already.',
        { 200: jsonResponse('The release, published', release) }, [409, 422]),
    },
    '/api/v1/@cms/release/{id}/revert': {
      post: action('revertRelease', 'Put every document back as it was published before the release',
        'One transaction; a document the release published first is unpublished. 409 unless it is published.',
        { 200: jsonResponse('The release, reverted', release) }, [409]),
    },
  };
}
