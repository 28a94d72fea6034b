import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';

/** One OpenAPI operation object. */
export type Operation = Record<string, unknown>;

/** The error statuses with a shared response object in `components.responses`, by status. */
export const errorResponses: Readonly<Record<number, { name: string; description: string }>> = {
  400: { name: 'Invalid', description: 'The request is malformed or a value is refused (`invalid`; field errors in `data.errors`).' },
  401: {
    name: 'Unauthorized',
    description:
      'The bearer token is unknown, expired or revoked (`unauthorized`); at login, the password was right but a TOTP code is needed (`totp-required`), or TOTP must be set up first with `data.setupToken` (`totp-setup-required`).',
  },
  403: {
    name: 'Forbidden',
    description: 'An unknown API key, a role below what the action needs, or a failed CSRF or Origin check (`forbidden`).',
  },
  404: { name: 'NotFound', description: 'No such document, or a type or version the caller may not read (`notfound`).' },
  409: {
    name: 'Conflict',
    description:
      'The request conflicts with what is stored (`conflict`; deleting or archiving a media piece that published documents show: `data.documents`, `data.others`), or another tab holds the advisory lock the body asks for (`locked`).',
  },
  412: {
    name: 'Changed',
    description: '`If-Match` named a version that has changed since (`changed`); `data` says who changed it and when. Nothing was written.',
  },
  422: {
    name: 'KeyReused',
    description: 'The `Idempotency-Key` was sent before with another request (method, path or body) (`unprocessable`). Nothing was written.',
  },
  410: {
    name: 'Expired',
    description: 'The `syncToken` is older than the change log keeps (`expired`): sync again from scratch, without a token.',
  },
  413: { name: 'TooLarge', description: 'The body, a file or a value is larger than the configured limit (`toolarge`).' },
  415: { name: 'Unsupported', description: 'The body is not of a media type this route reads (`unsupported`).' },
  429: { name: 'TooMany', description: 'Too many attempts or uploads; `Retry-After` says when to try again (`toomany`).' },
  500: { name: 'Failed', description: 'An unexpected failure on the server; nothing about it is shown (`error`, "An error occurred.").' },
  503: {
    name: 'Unavailable',
    description:
      'The server is busy, or the database does not answer for now (a restart); `Retry-After` says when to try again (`unavailable`). ' +
      'Nothing was written, unless `data.outcome` is `unknown`: the connection broke during the commit.',
  },
};

/** `{ name, message, data }`, the one error shape of every refusal. */
export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'message', 'data'],
  properties: {
    name: {
      enum: ['invalid', 'forbidden', 'notfound', 'conflict', 'locked', 'changed', 'unprocessable', 'unauthorized', 'toolarge', 'unsupported', 'unimplemented', 'toomany', 'unavailable', 'expired', 'totp-required', 'totp-setup-required', 'error'],
    },
    message: { type: 'string' },
    data: {
      type: 'object',
      description: 'Details by error; those below are the ones clients act on.',
      properties: {
        errors: { type: 'array', items: ref('FieldError'), description: '400: one entry per refused value' },
        retryAfter: { type: 'integer', description: '429, 503: seconds, as in `Retry-After`' },
        outcome: { const: 'unknown', description: '503: the write may or may not be stored (the database connection broke during its commit)' },
        constraint: { type: 'string', description: '409: what is already taken (`id`, `slug`, `username`, `email`)' },
        me: { const: true, description: '409 `locked`: another tab of the same user holds the lock' },
        username: { type: ['string', 'null'], description: '409 `locked`: the user who holds the lock' },
        title: { type: 'string', description: '409 `locked`: the name of the user who holds the lock' },
        documents: {
          type: 'array',
          items: { type: 'object', required: ['_id', 'type', 'title'], properties: { _id: { type: 'string' }, type: { type: 'string' }, title: { type: 'string' } } },
          description: '409 `conflict`: the published documents showing the media piece that the caller may read (at most `limits.inUseListed`); send `force=true` to go ahead',
        },
        others: { type: 'integer', description: '409 `conflict`: how many more published documents show it (the caller may not read them, or past the limit)' },
        updatedAt: { type: ['string', 'null'], description: '412: when the version was last changed (null: it is gone)' },
        updatedBy: { description: '412: who last changed it (`_id`, `title`, `username`)' },
        setupToken: { type: 'string', description: '401 `totp-setup-required`: good for the TOTP setup and enable routes only, for `expiresIn` seconds' },
        expiresIn: { type: 'integer', description: '401 `totp-setup-required`: seconds the setupToken lasts' },
      },
      additionalProperties: true,
    },
  },
};

export const fieldErrorSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'code', 'message', 'path', 'data'],
  properties: {
    name: { type: 'string', description: '`required`, `invalid`, `min`, `max`…' },
    code: { type: 'integer', description: '422 for `required`, else 400' },
    message: { type: 'string' },
    path: { type: 'string', description: 'dot path of the refused value' },
    data: { type: 'object' },
  },
};

/** The shared response objects, one per error status, each the error shape. */
export function sharedErrorResponses(): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    NotModified: { description: 'The client\'s copy (`If-None-Match`) is current.' },
  };
  for (const { name, description } of Object.values(errorResponses)) {
    responses[name] = { description, content: { 'application/json': { schema: ref('Error') } } };
  }
  return responses;
}

export function jsonResponse(description: string, schema: JsonSchema): Record<string, unknown> {
  return { description, content: { 'application/json': { schema } } };
}

export function jsonBody(schema: JsonSchema, required = true): Record<string, unknown> {
  return { required, content: { 'application/json': { schema } } };
}

/** The `If-Match` header every write to an existing document takes. */
export const ifMatchParameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The `ETag` of the version the client read (a GET, or the answer of its last write). When that version has changed since, ' +
    'the write is refused with 412 and nothing is written. `*` only asks that the document exists.',
  schema: { type: 'string', example: '"d1a2b3c4d.0123456789abcdefghijklmnop"' },
};

/** The `Idempotency-Key` header of the writes that take one (insert, PATCH, publish, unpublish). */
export function idempotencyKeyParameter(maxLength: number): Record<string, unknown> {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of the client\'s (a UUID, say) that makes a retry safe: the same request sent again with it within `limits.idempotencyKeyTtl` ' +
      'writes nothing and gets the first answer, marked `Idempotency-Replayed: true`. Per caller; another request with the same key is refused with 422. ' +
      'A refused write (4xx) keeps no record of its key.',
    schema: { type: 'string', minLength: 1, maxLength, pattern: '^[\\x21-\\x7e]+$', example: '6f1c2a0e-8a51-4d5e-9a3f-6c0e1b7d2a94' },
  };
}

/** A write that takes an `Idempotency-Key`: the header, its 422, and the replay mark on its answer. */
export function idempotent(operation: Operation, maxLength: number): Operation {
  const answers = operation.responses as Record<string, Record<string, unknown>>;
  const success = answers['200']!;
  const replayed = { description: '`true` when this is the answer of an earlier request with the same `Idempotency-Key`: nothing was written now.', schema: { const: 'true' } };
  return {
    ...operation,
    parameters: [...((operation.parameters as unknown[] | undefined) ?? []), idempotencyKeyParameter(maxLength)],
    responses: {
      ...answers,
      200: { ...success, headers: { ...(success.headers as object | undefined), 'Idempotency-Replayed': replayed } },
      422: { $ref: `#/components/responses/${errorResponses[422]!.name}` },
    },
  };
}

/** A write's answer that shows a version: its `ETag` names that version, for the client's next `If-Match`. */
export function versionResponse(description: string, schema: JsonSchema): Record<string, unknown> {
  return {
    ...jsonResponse(description, schema),
    headers: { ETag: { description: 'Names the version this answer shows: send it as `If-Match` with the next write.', schema: { type: 'string' } } },
  };
}

/** A GET's answer: ETag-validated, so `If-None-Match` may get a 304. */
export const notModified = { 304: { $ref: '#/components/responses/NotModified' } };

/**
 * The responses of an operation: its successes, then the shared error responses of `statuses`.
 * Every route may answer 400 (a malformed query or id), 401 (a bad bearer token) and 403 (an
 * unknown API key or a failed CSRF check) before it runs, 500 when something fails
 * unexpectedly, and 503 while the database does not answer. Fastify reads the body of every POST, PUT, PATCH and DELETE (`readsBody`), so
 * those add 413 and 415 even where the route takes no body.
 */
export function responses(success: Record<string | number, unknown>, statuses: readonly number[], readsBody: boolean): Record<string, unknown> {
  const all = new Set([400, 401, 403, 500, 503, ...(readsBody ? [413, 415] : []), ...statuses]);
  const result: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(success)) result[status] = response;
  for (const status of [...all].sort()) result[status] = { $ref: `#/components/responses/${errorResponses[status]!.name}` };
  return result;
}

/**
 * Security requirements: any credential, an anonymous call too when `anonymous`. A session
 * cookie needs the CSRF token on anything but GET.
 */
export function security(options: { anonymous: boolean; write: boolean }): Record<string, string[]>[] {
  const session: Record<string, string[]> = options.write ? { SessionCookie: [], CsrfToken: [] } : { SessionCookie: [] };
  const credentials: Record<string, string[]>[] = [{ ApiKey: [] }, { ApiKeyQuery: [] }, { BearerToken: [] }, session];
  return options.anonymous ? [{}, ...credentials] : credentials;
}

/** The security schemes of `src/http/plugins/auth.ts` and `src/http/session-cookies.ts`. */
export const securitySchemes = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'An API key (configured, or made with `cms apikey create`) as `Authorization: ApiKey <key>`.',
  },
  ApiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'apikey',
    description: 'An API key in the query (`apikey` or `apiKey`); it wins over a header.',
  },
  BearerToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A token from `POST /api/v1/@cms/login/login`, valid 14 days, with its user\'s role.',
  },
  SessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'cms.sid',
    description:
      'The session cookie set by a login with `"session": true` (`__Host-cms.sid` over https). Writes also need the CSRF token.',
  },
  CsrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: 'The session\'s CSRF token (from `login` or `whoami`), required with the session cookie on every write.',
  },
};
