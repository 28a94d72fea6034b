import type { AppConfig } from '../../content/app-config.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import type { DocumentSchemas } from './document-schemas.js';
import { ref } from './component-names.js';
import { versionParameters } from './piece-paths.js';
import { jsonBody, jsonResponse, responses, security, type Operation } from './operations.js';

const comment: JsonSchema = {
  type: 'object',
  required: ['_id', 'field', 'body', 'createdAt', 'createdBy', 'resolved', 'resolvedAt'],
  additionalProperties: false,
  properties: {
    _id: { type: 'string' },
    field: { type: ['string', 'null'], description: 'A field path of the type; null: the whole document' },
    body: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: {},
    resolved: { type: 'boolean' },
    resolvedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

const approveInput: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'key'],
  additionalProperties: false,
  properties: { type: { type: 'string' }, id: { type: 'string', description: 'The draft\'s _id' }, key: { type: 'string' } },
};
const approved: JsonSchema = {
  type: 'object',
  required: ['approved', 'stage'],
  additionalProperties: false,
  properties: { approved: { const: true }, stage: { type: 'string' } },
};

/** The routes of `routes/review.ts`, for each type with `options.review`. */
export function reviewPaths(config: AppConfig, schemas: DocumentSchemas): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  const idParameters = [{ $ref: '#/components/parameters/_id' }, ...versionParameters];
  for (const type of config.pieceTypes.values()) {
    if (!type.options.review) continue;
    const name = schemas.pieceNames.get(type.name)!;
    const read = ref(schemas.pieceComponent(type.name, 'read')!);
    const tags = [type.name];
    const one = `/api/v1/${type.name}/{_id}`;
    const op = (operationId: string, summary: string, success: Record<string, unknown>, statuses: number[], extra: Record<string, unknown> = {}, write = true): Operation => ({
      tags,
      operationId,
      summary,
      security: security({ anonymous: false, write }),
      parameters: idParameters,
      responses: responses(success, statuses, write),
      ...extra,
    });
    const stages = type.options.review.stages.map((stage) => stage.name);
    paths[`${one}/review`] = {
      post: op(`moveReview${name}`, 'Move the draft to a review stage, or assign its reviewers', { 200: jsonResponse('The draft, with its `cmsReview`.', read) }, [404], {
        requestBody: jsonBody({
          type: 'object',
          additionalProperties: false,
          properties: { stage: { enum: stages }, reviewers: { type: 'array', items: { type: 'string' } } },
        }),
      }),
    };
    paths[`${one}/comments`] = {
      post: op(`addReviewComment${name}`, 'Comment on the draft, or on one of its fields', { 201: jsonResponse('The comment.', comment) }, [404, 409], {
        requestBody: jsonBody({ type: 'object', required: ['body'], additionalProperties: false, properties: { body: { type: 'string' }, field: { type: ['string', 'null'] } } }),
      }),
      get: op(`listReviewComments${name}`, 'The draft\'s review comments, oldest first', { 200: jsonResponse('The comments.', { type: 'object', required: ['results'], properties: { results: { type: 'array', items: comment } } }) }, [404], {}, false),
    };
    paths[`${one}/comments/{commentId}`] = {
      patch: op(`resolveReviewComment${name}`, 'Resolve a review comment (or reopen it)', { 200: jsonResponse('The comment.', comment) }, [404], {
        parameters: [...idParameters, { name: 'commentId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: jsonBody({ type: 'object', required: ['resolved'], additionalProperties: false, properties: { resolved: { type: 'boolean' } } }),
      }),
    };
    paths[`${one}/review-link`] = {
      post: op(
        `makeReviewLink${name}`,
        'Make an approve link: whoever opens it moves the unchanged draft to publishFrom, once',
        {
          201: jsonResponse('The link; its key is shown this once.', {
            type: 'object',
            required: ['url', 'key', 'expiresAt'],
            additionalProperties: false,
            properties: { url: { type: 'string' }, key: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } },
          }),
        },
        [404],
        { requestBody: jsonBody({ type: 'object', additionalProperties: false, properties: { expiresIn: { type: 'integer', minimum: 1 } } }, false) },
      ),
    };
  }
  if (Object.keys(paths).length === 0) return paths;
  const approve = (operationId: string, extra: Record<string, unknown>): Operation => ({
    tags: ['@cms/review'],
    operationId,
    summary: 'Approve a draft through its approve link (anonymous)',
    security: [{}],
    responses: responses({ 200: jsonResponse('The draft is in publishFrom now.', approved) }, [404, 409, 410], true),
    ...extra,
  });
  paths['/api/v1/@cms/review/approve'] = {
    get: approve('approveReviewLink', {
      parameters: [
        { name: 'type', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'id', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'key', in: 'query', required: true, schema: { type: 'string' } },
      ],
    }),
    post: approve('approveReviewLinkPost', { requestBody: jsonBody(approveInput) }),
  };
  return paths;
}
