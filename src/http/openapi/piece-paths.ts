import type { AppConfig } from '../../content/app-config.js';
import type { SanitizedPieceType } from '../../content/types/piece-type.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { schemasHold } from '../../content/fields/walk-fields.js';
import { canSortOn } from '../../content/query/list-query.js';
import { maxCursorLength } from '../../content/query/list-cursor.js';
import { anyDocumentComponent, type DocumentSchemas } from './document-schemas.js';
import { ref } from './component-names.js';
import { idempotent, ifMatchParameter, jsonBody, jsonResponse, notModified, responses, security, versionResponse, type Operation } from './operations.js';

type PathItems = Record<string, Record<string, Operation>>;

const query = (name: string, schema: JsonSchema, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  in: 'query',
  description,
  schema,
  ...extra,
});

/** Every version route takes these (`src/http/schemas.ts`). */
export const versionParameters = [
  { $ref: '#/components/parameters/cmsMode' },
  { $ref: '#/components/parameters/cmsLocale' },
];

/** PUT, PATCH and DELETE (`writeQuery`): taking a media piece away from the published documents that show it. */
const forceParameter = query(
  'force',
  { enum: ['true', 'false'] },
  '`true`: delete or archive an `@cms/image` or `@cms/file` that published documents show. Without it that is refused with 409, `data.documents` naming those the caller may read and `data.others` counting the rest.',
);

/** A write to a stored version that `force` applies to. */
function forced(operation: Operation): Operation {
  return { ...operation, parameters: [...(operation.parameters as unknown[]), forceParameter] };
}

export const sharedParameters = {
  cmsMode: query('cmsMode', { enum: ['draft', 'published'] }, 'The mode of the version; drafts need draft access. Overrides the mode in the id.'),
  cmsLocale: query(
    'cmsLocale',
    { type: 'string', minLength: 1, maxLength: 64 },
    'The locale of the version (or `<locale>:<mode>`). Overrides the locale in the id; an unknown locale is a 400.',
  ),
  _id: {
    name: '_id',
    in: 'path',
    required: true,
    description: 'A version `_id` (`<cmsDocId>:<locale>:<mode>`) or the bare `cmsDocId`.',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

/*
 * Object parameters carry an example that every type accepts: without one, Swagger UI's "Try it
 * out" fills them with `additionalProp1` keys, which the list refuses.
 */
const deepObject = { style: 'deepObject', explode: true };
const renderAreas = query('renderAreas', { enum: ['true', '1', 'inline', 'false', '0'] }, '`true`/`1` replaces each top-level area\'s `items` by `_rendered` HTML; `inline` adds `_rendered` to each widget.');
/** A shared draft's link (`POST …/share`): both name the draft, whoever asks. */
const shareParameters = [
  query('cmsShareId', { type: 'string', maxLength: 200 }, 'With `cmsShareKey`: the full `_id` of a shared draft, the same as the path\'s; the draft is read whoever asks, and answered `Cache-Control: private, no-store`.'),
  query('cmsShareKey', { type: 'string', maxLength: 200 }, 'The draft\'s `cmsShareKey`, as `POST …/share` answered it; a wrong or withdrawn key is a 404.'),
];
/** A 404 of GET one: the JSON error; a shared read that a browser navigates to (`Accept` with `text/html` and no JSON) gets a page. */
const sharedReadNotFound = {
  description: 'No such document, or a type or version the caller may not read (`notfound`). A shared read (`cmsShareId`) whose key no longer works, asked by a browser\'s navigation (`Accept` names `text/html` and no JSON), is answered a page saying the preview link has expired or was revoked.',
  content: { 'application/json': { schema: ref('Error') }, 'text/html': { schema: { type: 'string' } } },
};
/** `POST …/share`: share or unshare; `expiresIn` makes a preview link that expires. */
const shareBody = {
  type: 'object',
  required: ['share'],
  properties: {
    share: { type: 'boolean' },
    expiresIn: { type: 'integer', minimum: 1, description: 'With `share: true`: a preview link that expires after this many seconds (at most `limits.shareLinkMaxLifetime`). Without it, `limits.shareLinkLifetime` applies (0: the draft\'s own key, which never expires).' },
  },
};
/** `POST …/preview-url` (live preview): the body is optional. */
const previewUrlBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    expiresIn: { type: 'integer', minimum: 1, description: 'Seconds the URL\'s preview link reads the draft (at most `limits.shareLinkMaxLifetime`); default `limits.livePreviewLinkLifetime` (1 hour).' },
  },
};
const previewUrlAnswer = {
  type: 'object',
  required: ['url', 'origin', 'expiresAt'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', format: 'uri', description: 'The front end\'s URL of the draft (`options.preview.url`) with `cmsShareId` and `cmsShareKey` of a fresh preview link.' },
    origin: { type: 'string', description: 'The origin of `url`: the one the admin posts the unsaved draft to.' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the link stops reading the draft.' },
  },
};
const shareLinkList = {
  type: 'object',
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['_id', 'createdAt', 'createdBy', 'expiresAt'],
        additionalProperties: false,
        properties: {
          _id: { type: 'string' },
          createdAt: { type: ['string', 'null'], format: 'date-time' },
          createdBy: {
            type: ['object', 'null'],
            properties: { _id: { type: ['string', 'null'] }, title: { type: ['string', 'null'] }, username: { type: ['string', 'null'] } },
          },
          expiresAt: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
  },
};
const revokedLink = { type: 'object', required: ['revoked'], additionalProperties: false, properties: { revoked: { type: 'string' } } };
const linkIdParameter = { name: 'linkId', in: 'path', required: true, description: 'A preview link\'s id, or `permanent` for the draft\'s own key.', schema: { type: 'string', minLength: 1, maxLength: 100 } };
const project = query('project', { type: 'object', additionalProperties: { enum: ['1', '0', 'true', 'false'] } }, '`project[title]=1` keeps those properties (plus `_id`, `type`, `metaType`); `project[body]=0` removes them.', { ...deepObject, example: { title: '1' } });
const archived = query('archived', { enum: ['1', 'true', '0', 'false', 'any'] }, 'Archived versions: only them (`1`), none (`0`, the default) or both (`any`). Ignored for callers without API access.');

/** The list's own parameters (`src/content/query/list-params.ts`). */
const listParameters = [
  query('page', { type: 'integer', minimum: 1 }, 'Page number, from 1.'),
  query('cursor', { type: 'string', maxLength: maxCursorLength }, 'The page after the one whose answer gave this `nextCursor`: the same list (type, sort, filters, search, locale, mode) walked by keyset, stable under writes between pages. Not with `page` or `_ids`.'),
  query('perPage', { type: 'integer', minimum: 1 }, 'Page size; default the type\'s `perPage`, larger than 100 is capped at 100.'),
  query('search', { type: 'string' }, 'Full-text search; `"quoted phrases"` must appear, `-word` must not.'),
  query('fallback', { enum: ['true', '1', 'false', '0'] }, '`true`: a document without a version in the asked locale shows its first version along the locale\'s fallback chain, marked `_fallbackLocale` (one version per document).'),
  query('autocomplete', { type: 'string' }, 'Every word matches the beginning of a word of the title or text fields, or every word is a whole word of any text (rich text included).'),
  project,
  query('_ids[]', { type: 'array', items: { type: 'string' } }, 'Only these documents (bare `cmsDocId`s or full `_id`s), in this order.', { style: 'form', explode: true }),
  archived,
  query('count', { enum: ['1', 'true', '0', 'false'] }, '`1` answers only `{ "count" }`, filters applied.'),
  query('choices', { type: 'string' }, 'Comma-separated filter names: adds `choices` with the values the matching documents hold.'),
  query('counts', { type: 'string' }, 'Like `choices`, under `counts`, each value with its `count`.'),
  query('scheduled', { enum: ['true', 'any', 'pending', 'failed'] }, 'Only documents with a scheduled publish or unpublish in the list\'s locale: `pending`, `failed`, or either (`true`, `any`). Needs draft access (403 otherwise).'),
  renderAreas,
];

/**
 * `sort`, with an example every caller who may list the type may send: a field of the public
 * projection when the type has one (anonymous callers sort on nothing else), else `updatedAt`.
 */
function sortParameter(type: SanitizedPieceType) {
  const projected = Object.keys(type.options.publicApiProjection ?? {});
  const field = ['title', ...projected].find((name) => canSortOn(type, name, false)) ?? 'updatedAt';
  return query(
    'sort',
    { anyOf: [{ type: 'object', additionalProperties: { enum: ['1', '-1'] } }, { const: 'search' }] },
    '`sort[<field>]=1` or `-1`, several in order; `sort=search` keeps the relevance order.',
    { ...deepObject, example: { [field]: field === 'updatedAt' ? '-1' : '1' } },
  );
}

/** `_newInstance: true`: the defaults with the body over them, never stored. */
const newInstance = { type: 'object', required: ['_previewable'], properties: { _previewable: { type: 'boolean' } } };

const filterValue = {
  anyOf: [
    { type: 'string' },
    { type: 'array', items: { type: 'string' } },
    { type: 'object', properties: { min: { type: 'string' }, max: { type: 'string' } } },
  ],
};

const choicesSchema = {
  type: 'object',
  additionalProperties: {
    type: 'array',
    items: {
      type: 'object',
      required: ['value', 'label'],
      properties: {
        value: {},
        label: { type: 'string', description: 'A choice\'s label (its English one, else the first, when configured per language) or the related title' },
        count: { type: 'integer' },
        _id: { type: 'string', description: 'Relationship choices: the related version\'s full `_id` (the value of the slug filters)' },
        slug: { type: 'string', description: 'Relationship choices: the related document\'s slug (the value of the slug filters)' },
        type: { type: 'string', description: 'Relationship choices: the related type' },
        metaType: { const: 'doc' },
      },
    },
  },
};

/**
 * The routes `src/http/routes/pieces.ts` registers for every piece type, with the parameters,
 * bodies and answers of each.
 */
export function piecePaths(config: AppConfig, fieldTypes: FieldTypeLookup, schemas: DocumentSchemas): PathItems {
  const paths: PathItems = {};
  for (const type of config.pieceTypes.values()) Object.assign(paths, pathsOfType(type, { config, fieldTypes, schemas }));
  return paths;
}

interface TypeContext {
  readonly config: AppConfig;
  readonly fieldTypes: FieldTypeLookup;
  readonly schemas: DocumentSchemas;
}

function pathsOfType(type: SanitizedPieceType, ctx: TypeContext): PathItems {
  const name = ctx.schemas.pieceNames.get(type.name)!;
  const read = ref(ctx.schemas.pieceComponent(type.name, 'read')!);
  const publicComponent = ctx.schemas.pieceComponent(type.name, 'public');
  // Anonymous callers get the public projection, so a GET answers either shape.
  const answer = publicComponent ? { anyOf: [read, ref(publicComponent)] } : read;
  const anonymous = publicComponent !== null;
  const tags = [type.name];
  const base = `/api/v1/${type.name}`;
  const one = `${base}/{_id}`;
  const idParameters = [{ $ref: '#/components/parameters/_id' }, ...versionParameters];
  const document = versionResponse(`The ${type.options.label} version.`, read);
  const write = { tags, security: security({ anonymous: false, write: true }) };
  // Hashing a password can find the server's hashing queue full: 503 with Retry-After.
  const hashes = schemasHold([type.fields], ctx.config.widgetTypes, 'password');
  const busy = hashes ? [503] : [];
  const keyed = (operation: Operation) => idempotent(operation, ctx.config.limits.idempotencyKeyLength);
  const action = (operationId: string, summary: string, success: Record<string, unknown>, statuses: number[], body?: Record<string, unknown>): Operation => ({
    ...write,
    operationId,
    summary,
    // Every write to a stored document takes If-Match (412 when the version changed since).
    parameters: [...idParameters, ifMatchParameter],
    ...(body && { requestBody: body }),
    responses: responses(success, [...statuses, 412], true),
  });

  // History shows every draft saved: its editors only, never kept on the way.
  const historyRead = { tags, security: security({ anonymous: false, write: false }) };

  return {
    [base]: {
      get: {
        tags,
        operationId: `list${name}`,
        summary: `List ${type.options.pluralLabel}`,
        security: security({ anonymous, write: false }),
        parameters: [...versionParameters, sortParameter(type), ...listParameters, ...filterParameters(type, ctx.fieldTypes)],
        responses: responses({ 200: jsonResponse('One page of versions, or `{ count }` with `count=1`.', ref(`${name}List`)), ...notModified }, [404], false),
      },
      post: keyed({
        ...write,
        operationId: `insert${name}`,
        summary: `Insert a ${type.options.label}`,
        parameters: versionParameters,
        requestBody: jsonBody(ref(`${name}Input`)),
        responses: responses({ 200: versionResponse('The new version, or with `_newInstance` the defaults (nothing stored).', { anyOf: [read, newInstance] }) }, [404, 409, ...busy], true),
      }),
    },
    [one]: {
      get: {
        tags,
        operationId: `get${name}`,
        summary: `Get one ${type.options.label} version`,
        security: security({ anonymous, write: false }),
        parameters: [...idParameters, archived, project, renderAreas, ...shareParameters],
        responses: { ...responses({ 200: jsonResponse(`The ${type.options.label} version.`, answer), ...notModified }, [404], false), 404: sharedReadNotFound },
      },
      put: forced(action(`replace${name}`, `Replace a ${type.options.label} version`, { 200: document }, [404, 409, ...busy], jsonBody(ref(`${name}Input`)))),
      patch: keyed(forced(action(`patch${name}`, `Patch a ${type.options.label} version`, { 200: document }, [404, 409, ...busy], jsonBody(ref(`${name}Patch`))))),
      delete: forced(action(`delete${name}`, `Delete a ${type.options.label} version for good`, { 200: { description: 'Deleted; the body is empty.' } }, [404, 409])),
    },
    [`${one}/publish`]: { post: keyed(action(`publish${name}`, 'Publish the draft', { 200: versionResponse('The published version.', read) }, [404, 409])) },
    [`${one}/unpublish`]: { post: keyed(action(`unpublish${name}`, 'Remove the published version', { 200: versionResponse('The draft.', read) }, [404])) },
    [`${one}/share`]: {
      post: action(
        `share${name}`,
        'Share the draft by a secret link, or stop sharing it',
        { 200: versionResponse('The draft, with its `cmsShareKey` while shared; a preview link made with a lifetime adds `cmsShareLinkId` and `cmsShareExpiresAt` (its key is shown this once).', read) },
        [404, 409],
        jsonBody(shareBody),
      ),
      get: {
        ...write,
        operationId: `shareLinks${name}`,
        summary: 'The live preview links of the draft (never their keys)',
        parameters: idParameters,
        responses: responses({ 200: jsonResponse('The live links, newest first; the draft\'s own never-expiring key last, as `permanent`.', shareLinkList) }, [404], true),
      },
    },
    [`${one}/preview-url`]: {
      post: action(
        `previewUrl${name}`,
        'The front end\'s live preview URL of the draft, with a fresh preview link',
        { 200: jsonResponse('Where the front end shows the draft, and until when its link reads it. Answered `Cache-Control: private, no-store`.', previewUrlAnswer) },
        // 404 also for a type without `options.preview`; 409 when the draft has `limits.shareLinksPerDraft` live links.
        [404, 409],
        jsonBody(previewUrlBody, false),
      ),
    },
    [`${one}/share/{linkId}`]: {
      delete: {
        ...action(`revokeShareLink${name}`, 'Revoke one preview link of the draft', { 200: jsonResponse('The revoked link.', revokedLink) }, [404]),
        parameters: [...idParameters, linkIdParameter, ifMatchParameter],
      },
    },
    [`${one}/schedule`]: {
      post: action(
        `schedule${name}`,
        'Schedule the draft to be published or unpublished, or cancel',
        { 200: versionResponse('The draft, with its `scheduledPublish` and `scheduledUnpublish`.', read) },
        [404],
        jsonBody({
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            publishAt: { type: ['string', 'null'], format: 'date-time', description: 'When to publish what the draft then holds (ISO 8601 with a zone); null cancels.' },
            unpublishAt: { type: ['string', 'null'], format: 'date-time', description: 'When to unpublish; after `publishAt` when both are pending; null cancels.' },
          },
        }),
      ),
    },
    [`${one}/revert-draft-to-published`]: {
      post: action(`revertDraftToPublished${name}`, 'Throw away the draft\'s changes', { 200: versionResponse('The draft, or `false` when there was nothing to revert.', { anyOf: [read, { const: false }] }) }, [404]),
    },
    [`${one}/revert-published-to-previous`]: {
      post: action(`revertPublishedToPrevious${name}`, 'Undo the last publish', { 200: versionResponse('The published version.', read) }, [404]),
    },
    [`${one}/localize`]: {
      post: action(
        `localize${name}`,
        'Copy the draft into another locale',
        { 200: versionResponse('The new draft.', read) },
        [404, 409],
        jsonBody({ type: 'object', required: ['toLocale'], properties: { toLocale: { type: 'string' }, update: { type: 'boolean' } } }),
      ),
    },
    [`${one}/history`]: {
      get: {
        ...historyRead,
        operationId: `history${name}`,
        summary: 'The history of the document in the id\'s locale, newest first',
        parameters: [...idParameters, ...pagingParameters],
        responses: responses({ 200: jsonResponse('One page of entries.', ref('HistoryPage')) }, [404], false),
      },
    },
    [`${one}/history/{entryId}`]: {
      get: {
        ...historyRead,
        operationId: `historyEntry${name}`,
        summary: 'One history entry, with the version as its change left it',
        parameters: [...idParameters, entryIdParameter],
        responses: responses({ 200: jsonResponse('The entry, and the version under `document`.', historyEntryOf(read)) }, [404], false),
      },
    },
    [`${one}/history/{entryId}/restore`]: {
      post: {
        ...action(`restoreHistory${name}`, 'Make the draft hold the content of a history entry (nothing is published)', { 200: versionResponse('The draft.', read) }, [404, 409], lockBody),
        parameters: [...idParameters, entryIdParameter, ifMatchParameter],
      },
    },
    [`${one}/locales`]: {
      get: {
        tags,
        operationId: `locales${name}`,
        summary: 'Every version of the document set the caller may see',
        security: security({ anonymous, write: false }),
        parameters: idParameters,
        responses: responses({ 200: jsonResponse('The versions.', ref('Locales')), ...notModified }, [404], false),
      },
    },
  };
}

/** The history routes' own parameters. */
const pagingParameters = [
  ...listParameters.filter((parameter) => parameter.name === 'page' || parameter.name === 'perPage'),
  query('cursor', { type: 'string', maxLength: maxCursorLength }, 'A previous answer\'s `nextCursor`: the entries after its page\'s last, of the same document and locale. Not with `page`.'),
];
const entryIdParameter = {
  name: 'entryId',
  in: 'path',
  required: true,
  description: 'A history entry `_id` of this document and locale (24 lowercase letters and digits); another document\'s is a 404.',
  schema: { type: 'string', pattern: '^[a-z][a-z0-9]{23}$' },
};
/** A restore's optional body: only `_advisoryLock`, as a PUT's. */
const lockBody = jsonBody(
  {
    type: 'object',
    properties: {
      _advisoryLock: { type: 'object', required: ['tabId', 'lock'], properties: { tabId: { type: 'string' }, lock: { type: 'boolean' }, force: { type: 'boolean' } } },
    },
  },
  false,
);

function historyEntryOf(read: JsonSchema): JsonSchema {
  return { allOf: [ref('HistoryEntry'), { type: 'object', required: ['document'], properties: { document: read } }] };
}

/** A filter parameter for every filter the type's top-level fields offer (`category`, `_author`, `authorAnd`…). */
export function filterParameters(type: SanitizedPieceType, fieldTypes: FieldTypeLookup) {
  return type.fields.flatMap((field) =>
    (fieldTypes.get(field.type)?.filters?.(field) ?? []).map((filter) =>
      query(filter.name, filterValue, filter.about ?? `Filter on ${field.label || field.name} (\`${field.type}\`).`, deepObject),
    ),
  );
}

/** `ArticleList`: the list envelope of each type, or `{ count }`. */
export function listComponents(config: AppConfig, schemas: DocumentSchemas): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  for (const type of config.pieceTypes.values()) {
    const read = ref(schemas.pieceComponent(type.name, 'read')!);
    const publicComponent = schemas.pieceComponent(type.name, 'public');
    const item = publicComponent ? { anyOf: [read, ref(publicComponent)] } : read;
    const count = { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } };
    components[`${schemas.pieceNames.get(type.name)}List`] = { anyOf: [pageOf(item), count] };
  }
  return components;
}

/** One page of a list, of versions described by `item`. */
function pageOf(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['pages', 'currentPage', 'nextCursor', 'results'],
    properties: {
      pages: { type: 'integer' },
      currentPage: { type: 'integer' },
      nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last (and for `_ids`).' },
      results: { type: 'array', items: item },
      choices: choicesSchema,
      counts: choicesSchema,
    },
  };
}

/** The component of a list page of any type, for clients that work on any type (the admin). */
export const anyPageComponent = 'DocumentPage';

export const anyPageSchema: JsonSchema = {
  ...pageOf(ref(anyDocumentComponent)),
  description: 'One page of a list of any type (`count=1` answers `{ count }` instead). Each type\'s is `<Type>List`.',
};
