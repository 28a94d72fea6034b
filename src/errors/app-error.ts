/**
 * The error catalogue. Every error the service raises on purpose is an AppError whose `code`
 * names an entry here; `http/error-mapper.ts` is the one place that turns a code into an HTTP
 * status and the public `{ name, message, data }` body. Nothing in this folder knows HTTP.
 */
export const errorCodes = [
  'invalid',
  'forbidden',
  'notfound',
  'conflict',
  'locked',
  'changed',
  'unprocessable',
  'unauthorized',
  'toolarge',
  'unsupported',
  'unimplemented',
  'toomany',
  'unavailable',
  'expired',
  'totp-required',
  'totp-setup-required',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** One entry of `data.errors` of a validation error: names the failing field by its path. */
export interface FieldError {
  name: string;
  path: string;
  message?: string;
  data?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, data: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message ?? code, options);
    this.code = code;
    this.data = data;
  }
}

export class ValidationError extends AppError {
  readonly errors: FieldError[];

  constructor(errors: FieldError[], message = 'invalid') {
    super('invalid', message, { errors });
    this.errors = errors;
  }
}

/** A request that breaks a rule without naming a field (bad query value, wrong id form). */
export class InvalidRequestError extends AppError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('invalid', message, data);
  }
}

/**
 * A login whose password was right that needs more: the TOTP code (or a recovery code) of an
 * account with TOTP on (`totp-required`), or TOTP set up first by a user of a role that must use
 * it (`totp-setup-required`, with a short-lived `setupToken` good for that only).
 */
export class SecondFactorError extends AppError {
  constructor(code: 'totp-required' | 'totp-setup-required', message: string, data: Record<string, unknown> = {}) {
    super(code, message, data);
  }
}

/** A position the client kept that the server no longer holds (a sync token older than the change log's retention). */
export class ExpiredError extends AppError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('expired', message, data);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'forbidden', data: Record<string, unknown> = {}) {
    super('forbidden', message, data);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'notfound', data: Record<string, unknown> = {}) {
    super('notfound', message, data);
  }
}

export class ConflictError extends AppError {
  constructor(message = 'conflict', data: Record<string, unknown> = {}) {
    super('conflict', message, data);
  }
}

/**
 * An `Idempotency-Key` sent again with another request (another body, path or method) than the
 * write it was first sent with: nothing is written, and the first write's answer is not shown.
 */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      'unprocessable',
      'This Idempotency-Key was sent before with another request (method, path or body): send a new key for a new request, or the same request to get its answer again',
    );
  }
}

/** The original's advisory lock: another editor (or another tab of the same one) holds the document. */
export class LockedError extends AppError {
  constructor(message: string, data: { me: true } | { username: string | null; title: string }) {
    super('locked', message, data);
  }
}

/** `If-Match` named a version that has changed since: who changed it and when. */
export class VersionChangedError extends AppError {
  constructor(message: string, data: { updatedAt: string | null; updatedBy: unknown }) {
    super('changed', message, data);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'unauthorized') {
    super('unauthorized', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'The request body is too large', data: Record<string, unknown> = {}) {
    super('toolarge', message, data);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Unsupported content type', data: Record<string, unknown> = {}) {
    super('unsupported', message, data);
  }
}

/**
 * A request refused for now that may be made again in `retryAfter` seconds: `toomany` when this
 * client asked too often, `unavailable` when the server is too busy for anyone.
 */
export class RetryLaterError extends AppError {
  readonly retryAfter: number;

  constructor(code: 'toomany' | 'unavailable', message: string, retryAfter: number, data: Record<string, unknown> = {}) {
    super(code, message, { ...data, retryAfter });
    this.retryAfter = retryAfter;
  }
}

/**
 * The store does not answer for now: PostgreSQL restarts or cannot be reached, a connection to it
 * broke, or SQLite's file stays locked by another process (or cannot be written) past the wait.
 * Raised by the storage adapters, never for what a client sent. Nothing was written, except with
 * `data.outcome: 'unknown'`: the connection broke while the commit was on its way, so the write
 * may or may not be stored (read it back before sending it again).
 */
export class StoreUnavailableError extends RetryLaterError {
  /** Seconds a client waits before it asks again: a PostgreSQL restart takes a few. */
  static readonly retryAfter = 2;

  constructor(message: string, options: { readonly outcome?: 'unknown'; readonly cause?: unknown } = {}) {
    super('unavailable', message, StoreUnavailableError.retryAfter, options.outcome ? { outcome: options.outcome } : {});
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** A configuration that cannot be served; raised at start, never over HTTP. */
export class ConfigError extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(path ? `${path}: ${message}` : message);
    this.path = path;
  }
}
