import { AppError, RetryLaterError, ValidationError, type ErrorCode, type FieldError } from '../errors/app-error.js';

/** The one JSON error shape of every response, the original's `{ name, message, data }`. */
export interface ErrorBody {
  name: string;
  message: string;
  data: Record<string, unknown>;
}

/** The one code → status table. */
const statusOf: Record<ErrorCode, number> = {
  invalid: 400,
  forbidden: 403,
  notfound: 404,
  conflict: 409,
  locked: 409,
  changed: 412,
  unprocessable: 422,
  unauthorized: 401,
  toolarge: 413,
  unsupported: 415,
  unimplemented: 501,
  toomany: 429,
  unavailable: 503,
  expired: 410,
  'totp-required': 401,
  'totp-setup-required': 401,
};

/** Framework errors that come from the client, by their status. */
const codeOfClientStatus: Record<number, ErrorCode> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'notfound',
  405: 'invalid',
  409: 'conflict',
  413: 'toolarge',
  414: 'invalid',
  415: 'unsupported',
  431: 'invalid',
};

export interface MappedError {
  status: number;
  body: ErrorBody;
  internal: boolean;
  /** Response headers the error calls for (`Retry-After` of a 429 or 503). */
  headers?: Record<string, string>;
}

// Messages and paths may quote client text as long as the body: an answer shows their start, so
// a refusal stays short whatever was sent.
const shownLength = 200;

function clip(text: string): string {
  return text.length <= shownLength ? text : `${text.slice(0, shownLength)}…`;
}

export function mapError(error: unknown): MappedError {
  if (error instanceof RetryLaterError) {
    const body = { name: error.code, message: clip(error.message), data: error.data };
    return { status: statusOf[error.code], body, internal: false, headers: { 'retry-after': String(error.retryAfter) } };
  }
  if (error instanceof ValidationError) {
    const errors = error.errors.map(fieldErrorBody);
    return { status: 400, body: { name: 'invalid', message: clip(error.message), data: { errors } }, internal: false };
  }
  if (error instanceof AppError) {
    return { status: statusOf[error.code], body: { name: error.code, message: clip(error.message), data: error.data }, internal: false };
  }
  const framework = error as { statusCode?: number; message?: string; validation?: unknown; validationContext?: string };
  const code = typeof framework.statusCode === 'number' ? codeOfClientStatus[framework.statusCode] : undefined;
  if (code === 'unsupported') return { status: 415, body: unsupportedBody, internal: false };
  if (code) {
    return { status: statusOf[code], body: { name: code, message: clip(framework.message ?? code), data: {} }, internal: false };
  }
  // Anything else is our fault: say so without leaking internals.
  return { status: 500, body: { name: 'error', message: 'An error occurred.', data: {} }, internal: true };
}

/**
 * Fastify's 415 (a body none of the parsers takes) says only "Unsupported Media Type"; this
 * answer says what to send instead. The one route that takes multipart answers its own.
 */
const unsupportedBody: ErrorBody = {
  name: 'unsupported',
  message:
    'Send the body as JSON with the header Content-Type: application/json; ' +
    'file uploads (POST /api/v1/@cms/attachment/upload) take multipart/form-data',
  data: { accepted: ['application/json'] },
};

/** Nested errors (arrays, objects, areas) keep their own `data.errors`, shaped the same way. */
function fieldErrorBody(error: FieldError): Record<string, unknown> {
  const data = { ...(error.data ?? {}) };
  if (Array.isArray(data.errors)) data.errors = (data.errors as FieldError[]).map(fieldErrorBody);
  return {
    name: error.name,
    code: error.name === 'required' ? 422 : 400,
    message: clip(error.message ?? error.name),
    path: clip(error.path),
    data,
  };
}
