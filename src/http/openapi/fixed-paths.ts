import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';
import { jsonBody, jsonResponse, notModified, responses, security, type Operation } from './operations.js';

const string = { type: 'string' };
const number = { type: 'number' };
const dateTime = { type: 'string', format: 'date-time' };
const ids = { type: 'array', items: string };
const cropBox = { type: 'object', required: ['top', 'left', 'width', 'height'], properties: { top: number, left: number, width: number, height: number } };

/** The components of the routes every configuration has (media, login, setup, health; the schema's are in `schema-answer.ts`). */
export const fixedComponents: Record<string, JsonSchema> = {
  Crop: cropBox,
  Attachment: {
    type: 'object',
    description: 'An uploaded file (interface 2.5). `docIds` and `archivedDocIds` are shown to callers with API access only.',
    required: ['_id', 'type', 'name', 'title', 'extension', 'group', 'length', 'md5', 'crops', 'createdAt', 'updatedAt', '_url', '_isCroppable'],
    properties: {
      _id: string,
      _url: { ...string, description: 'The original file' },
      _isCroppable: { type: 'boolean', description: 'Whether the file is an image the server sizes and crops (not SVG)' },
      _urls: {
        type: 'object',
        description: 'Images: one URL per size (`max`, `full`, `two-thirds`, …, `original`); with a crop, the uncropped ones under `uncropped`',
        properties: { uncropped: { type: 'object', additionalProperties: string } },
        additionalProperties: string,
      },
      type: { const: 'attachment' },
      name: string,
      title: string,
      extension: string,
      group: string,
      length: { type: 'integer' },
      md5: string,
      width: number,
      height: number,
      landscape: { type: 'boolean' },
      portrait: { type: 'boolean' },
      createdAt: dateTime,
      updatedAt: dateTime,
      docIds: ids,
      archivedDocIds: ids,
      crops: { type: 'array', items: ref('Crop') },
      focalPoint: { ...ref('FocalPoint'), description: 'Where the image\'s subject is (set by `focal-point`); absent: none set' },
      crop: { anyOf: [ref('Crop'), { type: 'null' }], description: 'The crop a document chose' },
      _crop: ref('Crop'),
      _focalPoint: {
        type: 'object',
        description: 'Reached through a relationship to an image: the focal point of its crop fields (`x`, `y` in percent of the image), else the attachment\'s',
        required: ['x', 'y'],
        properties: { x: { type: 'integer' }, y: { type: 'integer' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  FocalPoint: {
    type: 'object',
    description: 'A point of an image in whole percent of its width (`x`) and height (`y`)',
    required: ['x', 'y'],
    properties: { x: { type: 'integer', minimum: 0, maximum: 100 }, y: { type: 'integer', minimum: 0, maximum: 100 } },
    additionalProperties: false,
  },
  CropFields: {
    type: 'object',
    description: 'A relationship\'s crop of an image: the box (whole pixels; null: none) and the focal point (`x`, `y`, percent 0..100)',
    properties: { top: number, left: number, width: number, height: number, x: number, y: number },
  },
  HistoryEntry: {
    type: 'object',
    description: 'One saved change of a document version: when, who, what kind of change, and the mode of the version it left.',
    required: ['_id', 'createdAt', 'updatedBy', 'action', 'cmsMode'],
    properties: {
      _id: string,
      createdAt: dateTime,
      updatedBy: {
        type: 'object',
        required: ['_id', 'title', 'username'],
        properties: { _id: { type: ['string', 'null'] }, title: string, username: { type: ['string', 'null'] } },
      },
      action: {
        enum: ['insert', 'update', 'publish', 'unpublish', 'archive', 'restore', 'revert-draft-to-published', 'revert-published-to-previous', 'localize', 'restore-history', 'review.stage', 'review.comment'],
      },
      cmsMode: { enum: ['draft', 'published'] },
    },
  },
  HistoryPage: {
    type: 'object',
    description: 'One page of the history of a document in one locale, newest first.',
    required: ['pages', 'currentPage', 'nextCursor', 'results'],
    properties: {
      pages: { type: 'integer' },
      currentPage: { type: 'integer' },
      nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last.' },
      results: { type: 'array', items: ref('HistoryEntry') },
    },
  },
  Locales: {
    type: 'object',
    required: ['results'],
    // Types that are not localized (`@cms/user`) have one version, without `cmsLocale`.
    properties: { results: { type: 'array', items: { type: 'object', required: ['_id'], properties: { _id: string, cmsLocale: string } } } },
  },
  Whoami: {
    type: 'object',
    description:
      'The original\'s answer: of the user, `_id`, `username`, `title` and `email` when it has them, and the fields '
      + '`login.whoamiFields` names (`role`…); for an API key, its "System Task" user (`title`, and `role` when named).',
    properties: {
      _id: string,
      username: string,
      title: string,
      email: string,
      role: { enum: ['guest', 'contributor', 'editor', 'admin'], description: 'Only when `login.whoamiFields` names it (and from `setup`)' },
      csrfToken: { ...string, description: 'Session callers only' },
    },
  },
  Health: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { const: 'ok' },
      store: { const: 'ok', description: 'The database answers (readiness only)' },
      connections: {
        type: 'array',
        description: 'With read replicas (CMS_DATABASE_READ_URL) only: the primary, then each replica (readiness only)',
        items: {
          type: 'object',
          required: ['role', 'up', 'served'],
          properties: {
            role: { enum: ['primary', 'replica'] },
            name: { type: 'string', description: 'Which one: host and port, never credentials (to an admin only)' },
            up: { type: 'boolean' },
            lagMs: { type: ['number', 'null'], description: 'A replica: how far behind the primary it is (null: not measured yet)' },
            skipped: { type: 'boolean', description: 'A replica: down, or lagging beyond limits.readReplicaMaxLag, so reads pass it by' },
            served: { type: 'integer', description: 'Reads of GET requests it answered since the process started' },
            error: { type: 'string', description: 'A replica that is down: why (to an admin only)' },
          },
        },
      },
    },
  },
};

const tags = {
  media: ['@cms/attachment'],
  login: ['@cms/login'],
  setup: ['@cms/setup'],
  service: ['service'],
};

const anyone = security({ anonymous: true, write: false });
const writer = security({ anonymous: false, write: true });

/** The routes of `media.ts`, `auth.ts`, `setup.ts`, `health.ts` and `schema.ts`. */
export function fixedPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/attachment/upload': {
      post: {
        tags: tags.media,
        operationId: 'uploadAttachment',
        summary: 'Upload a file',
        security: writer,
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } } } } },
        },
        responses: responses({ 200: jsonResponse('The new attachment; `docIds` is empty.', ref('Attachment')) }, [429, 503], true),
      },
    },
    '/api/v1/@cms/attachment/crop': {
      post: {
        tags: tags.media,
        operationId: 'cropAttachment',
        summary: 'Make a cropped copy of an image',
        security: writer,
        requestBody: jsonBody({ type: 'object', required: ['_id', 'crop'], properties: { _id: string, crop: ref('Crop'), annotate: { type: 'boolean' } } }),
        responses: responses(
          { 200: jsonResponse('`true`, or with `annotate: true` the attachment annotated with the crop.', { anyOf: [{ const: true }, ref('Attachment')] }) },
          [404, 429, 503],
          true,
        ),
      },
    },
    '/api/v1/@cms/attachment/focal-point': {
      post: {
        tags: tags.media,
        operationId: 'setAttachmentFocalPoint',
        summary: 'Set or clear the focal point of an image',
        description: 'Needs the rights of a crop. Autocrop centres its crops on it when the relationship gives none.',
        security: writer,
        requestBody: jsonBody({
          type: 'object',
          required: ['_id', 'focalPoint'],
          properties: { _id: string, focalPoint: { anyOf: [ref('FocalPoint'), { type: 'null' }], description: 'null clears it' } },
        }),
        responses: responses({ 200: jsonResponse('The attachment, with its `focalPoint` (absent once cleared).', ref('Attachment')) }, [404], true),
      },
    },
    '/api/v1/@cms/image/autocrop': {
      post: {
        tags: ['@cms/image'],
        operationId: 'autocropImages',
        summary: 'The crop of an aspect ratio, centred on the focal point (else the centre), for each image of a relationship value, its files made',
        security: writer,
        parameters: [{ $ref: '#/components/parameters/cmsMode' }, { $ref: '#/components/parameters/cmsLocale' }],
        requestBody: jsonBody({
          type: 'object',
          properties: {
            relationship: {
              type: 'array',
              description: 'Images as in a relationship value: `{ _id, _fields? }` (at most `autocropImages`)',
              items: { type: 'object', properties: { _id: string, _fields: ref('CropFields') } },
            },
            widgetOptions: {
              type: 'object',
              properties: { aspectRatio: { type: 'array', items: { type: 'number', exclusiveMinimum: 0 }, minItems: 2, maxItems: 2 } },
            },
          },
        }),
        responses: responses(
          {
            200: jsonResponse('The images the caller may read, in the order given, each with its laundered or new crop `_fields`; a new crop also as `_crop`, with the attachment annotated with it.', {
              type: 'object',
              required: ['relationship'],
              properties: {
                relationship: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['_id'],
                    properties: { _id: string, _fields: { ...ref('CropFields'), description: 'Always with an aspect ratio; without one, only where the image was sent with `_fields`' }, _crop: ref('Crop'), attachment: { anyOf: [ref('Attachment'), { type: 'null' }] } },
                  },
                },
              },
            }),
          },
          [429, 503],
          true,
        ),
      },
    },
    '/api/v1/@cms/image/{_id}/src': {
      get: {
        tags: ['@cms/image'],
        operationId: 'imageSource',
        summary: 'Redirect to one size of an image piece\'s file',
        security: anyone,
        parameters: [
          { $ref: '#/components/parameters/_id' },
          { $ref: '#/components/parameters/cmsMode' },
          { $ref: '#/components/parameters/cmsLocale' },
          { name: 'size', in: 'query', schema: { type: 'string', maxLength: 32 }, description: 'An image size name (`full` …)' },
        ],
        responses: responses({ 302: { description: 'Redirect to the file (`Location`).' } }, [404], false),
      },
    },
    '/api/v1/@cms/login/login': {
      post: {
        tags: tags.login,
        operationId: 'login',
        summary: 'Sign in: a bearer token, or with `session: true` a session cookie',
        security: [{}],
        requestBody: jsonBody({
          type: 'object',
          required: ['username', 'password'],
          properties: {
            username: { ...string, description: 'Username or email' },
            password: { ...string, writeOnly: true },
            session: { type: 'boolean' },
            totp: { ...string, pattern: '^[0-9]{6}$', description: 'The current code of the authenticator app, for an account with TOTP on (else 401 `totp-required`)' },
            recoveryCode: { ...string, maxLength: 64, description: 'Instead of `totp`: one of the recovery codes, each good once' },
          },
        }),
        responses: responses(
          {
            200: jsonResponse('A bearer token, or the session\'s CSRF token (the cookies are set).', {
              anyOf: [
                { type: 'object', required: ['token'], properties: { token: string } },
                { type: 'object', required: ['csrfToken'], properties: { csrfToken: string } },
              ],
            }),
          },
          [429, 503],
          true,
        ),
      },
    },
    '/api/v1/@cms/login/logout': {
      post: {
        tags: tags.login,
        operationId: 'logout',
        summary: 'Revoke the bearer token or end the session',
        security: [{ BearerToken: [] }, { SessionCookie: [], CsrfToken: [] }],
        responses: responses({ 200: { description: 'Signed out; the body is empty.' } }, [], true),
      },
    },
    '/api/v1/@cms/login/whoami': {
      get: whoami('whoami', false),
      post: whoami('whoamiPost', true),
    },
    '/api/v1/@cms/setup': {
      get: {
        tags: tags.setup,
        operationId: 'setupNeeded',
        summary: 'Whether the first admin is still to be created',
        security: [{}],
        responses: responses({ 200: jsonResponse('', { type: 'object', required: ['needed'], properties: { needed: { type: 'boolean' } } }) }, [], false),
      },
      post: {
        tags: tags.setup,
        operationId: 'setup',
        summary: 'Create the first admin with the one-time setup code',
        security: [{}],
        requestBody: jsonBody({
          type: 'object',
          required: ['code', 'username', 'password'],
          properties: { code: string, username: string, password: { ...string, writeOnly: true }, title: string, email: string },
        }),
        responses: responses({ 200: jsonResponse('The new admin.', ref('Whoami')) }, [409, 429, 503], true),
      },
    },
    '/api/v1/@cms/schema': {
      get: {
        tags: tags.service,
        operationId: 'configurationSchema',
        summary: 'What the caller may see of the configuration',
        security: anyone,
        responses: responses({ 200: jsonResponse('Built once per role.', ref('ConfigurationSchema')), ...notModified }, [], false),
      },
    },
    '/api/v1/openapi.json': {
      get: {
        tags: tags.service,
        operationId: 'openApiDocument',
        summary: 'This document',
        security: [{}],
        responses: responses({ 200: jsonResponse('The OpenAPI 3.1 document of this configuration, as the caller\'s role may see it.', { type: 'object' }), ...notModified }, [], false),
      },
    },
    '/health': {
      get: {
        tags: tags.service,
        operationId: 'health',
        summary: 'Readiness: whether the database answers',
        description: 'For a load balancer: 503 with `Retry-After` while the database does not answer (a restart), 200 again once it does.',
        security: [{}],
        responses: responses({ 200: jsonResponse('The database answers.', ref('Health')) }, [], false),
      },
    },
    '/health/live': {
      get: {
        tags: tags.service,
        operationId: 'liveness',
        summary: 'Liveness: whether the process serves',
        description: 'For a supervisor that restarts processes: 200 whatever the database does, without asking it.',
        security: [{}],
        responses: responses({ 200: jsonResponse('The process serves.', ref('Health')) }, [], false),
      },
    },
    '/api/v1/@cms/live-preview.js': {
      get: {
        tags: tags.service,
        operationId: 'livePreviewScript',
        summary: 'The live preview helper as an ES module',
        description: 'The typed client\'s `subscribeToLivePreview`, for a front end page to import (`<script type="module">`); `Access-Control-Allow-Origin: *`. See the live preview guide.',
        security: [{}],
        responses: { 200: { description: 'The module.', content: { 'text/javascript': { schema: { type: 'string' } } } } },
      },
    },
  };
}

function whoami(operationId: string, readsBody: boolean): Operation {
  return {
    tags: tags.login,
    operationId,
    summary: 'The signed-in user of the bearer token or session, or the API key\'s user',
    security: [{ BearerToken: [] }, { SessionCookie: [] }, { ApiKey: [] }, { ApiKeyQuery: [] }],
    responses: responses({ 200: jsonResponse('The user (or the API key\'s System Task user); `csrfToken` for a session.', ref('Whoami')) }, [404], readsBody),
  };
}
