/**
 * The narrow storage interface the services depend on, one file per store under `interface/`.
 * One adapter per database implements it (`sqlite/`, `postgres/`); nothing above storage knows
 * SQL, and the stores know no content rules: the locale and mode of a version, the generation
 * key of attachment writes, the digests of index plans all come from their callers.
 */
export type * from './interface/account-security.js';
export type * from './interface/adapter.js';
export type * from './interface/advisory-locks.js';
export type * from './interface/api-keys.js';
export type * from './interface/attachments.js';
export type * from './interface/audit.js';
export type * from './interface/change-log.js';
export type * from './interface/presence.js';
export type * from './interface/preferences.js';
export * from './interface/document-query.js';
export type * from './interface/documents.js';
export type * from './interface/history.js';
export type * from './interface/idempotency-keys.js';
export type * from './interface/index-plans.js';
export type * from './interface/login-throttle.js';
export type * from './interface/logins.js';
export type * from './interface/schedules.js';
export type * from './interface/setup-codes.js';
export type * from './interface/share-links.js';
export type * from './interface/releases.js';
export type * from './interface/review.js';
export type * from './interface/tokens.js';
export type * from './interface/webhooks.js';
