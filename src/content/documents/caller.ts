import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { requireDrafts } from '../access/permissions.js';
import { composeId, isMode, parseDocumentId } from '../../core/ids.js';
import type { Precondition } from './preconditions.js';
import type { RequestOrigin, ScheduledRun } from '../../core/audit.js';

/**
 * A write sent with an `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header, Stripe's
 * model): who sent it, the key, and what it asked. The HTTP layer reads it (`Caller.idempotency`).
 */
export interface IdempotentRequest {
  /** The caller's id (`user:<id>`, `key:<SHA-256 of the key>`): a key never crosses callers. */
  readonly scope: string;
  readonly key: string;
  /** A digest of the method, the path with its query and the body: the same key names one request. */
  readonly fingerprint: string;
}

/** Who makes a request, and the version it asks for: the cmsLocale/cmsMode it named. */
export interface Caller {
  readonly principal: Principal;
  /** `cmsLocale` as sent; may be the `en:draft` shorthand. */
  readonly locale?: string;
  readonly mode?: 'draft' | 'published';
  /** A write's `If-Match`: refused (412) unless a version it names is still current. */
  readonly unchangedSince?: Precondition;
  /**
   * `force=true`: delete or archive a media piece although published documents show it
   * (`MediaInUse`); without it that is refused (409).
   */
  readonly force?: boolean;
  /** Where the request came from (the audit trail's address and request id); none from the command line. */
  readonly origin?: RequestOrigin;
  /**
   * Which API key asks, when one does: its caller id (`key:<SHA-256 of the key>`, as per-caller
   * budgets name it), so that a schedule it sets runs only while the key is still accepted.
   */
  readonly keyCallerId?: string;
  /** Set when a schedule makes the change (schedule-runner.ts): the audit record says so. */
  readonly schedule?: ScheduledRun;
  /** A write's `Idempotency-Key`: its record is written in the write's transaction (idempotency.ts). */
  readonly idempotency?: IdempotentRequest;
}

/** One version of one document set: the `_id` and its parts, after every override is applied. */
export interface Target {
  readonly id: string;
  readonly docId: string;
  /** null for non-localized types (users). */
  readonly locale: string | null;
  readonly mode: 'draft' | 'published' | null;
}

/** The locale and mode a request works in: cmsLocale/cmsMode, else the defaults. */
export function requestVersion(
  config: AppConfig,
  type: SanitizedPieceType,
  caller: Caller,
): { locale: string | null; mode: 'draft' | 'published' | null } {
  if (!type.options.localized) return { locale: null, mode: null };
  const asked = splitLocale(config, caller.locale);
  const locale = asked.locale ?? config.defaultLocale;
  const mode = caller.mode ?? asked.mode ?? 'published';
  return { locale, mode };
}

/** `cmsLocale` validated against the configuration; `en:draft` also names the mode. */
export function splitLocale(config: AppConfig, raw: string | undefined): { locale?: string; mode?: 'draft' | 'published' } {
  if (raw === undefined) return {};
  const [locale, mode, extra] = raw.split(':');
  if (!locale || !config.locales.has(locale) || extra !== undefined || (mode !== undefined && !isMode(mode))) {
    throw new InvalidRequestError(`Unknown locale "${raw}"`, { locales: [...config.locales.keys()] });
  }
  return { locale, mode: mode as 'draft' | 'published' | undefined };
}

/**
 * Resolves a path segment (`<docId>:<locale>:<mode>` or a bare cmsDocId) to one version:
 * query parameters override the id's own locale and mode, a bare id takes the request's.
 * Asking for a draft without the right to see drafts is refused before anything is read.
 */
export function resolveTarget(config: AppConfig, type: SanitizedPieceType, rawId: string, caller: Caller): Target {
  const parsed = parseDocumentId(rawId);
  if (!type.options.localized) return { id: parsed.docId, docId: parsed.docId, locale: null, mode: null };
  const asked = splitLocale(config, caller.locale);
  const locale = asked.locale ?? parsed.locale ?? config.defaultLocale;
  const mode = caller.mode ?? asked.mode ?? parsed.mode ?? 'published';
  if (!isMode(mode)) throw new NotFoundError();
  if (mode === 'draft') requireDrafts(caller.principal, type);
  if (!config.locales.has(locale)) throw new NotFoundError();
  return { id: composeId(parsed.docId, locale, mode), docId: parsed.docId, locale, mode };
}

export function versionId(target: { docId: string; locale: string | null }, mode: 'draft' | 'published' | 'previous'): string {
  return target.locale === null ? target.docId : composeId(target.docId, target.locale, mode);
}

/** The piece type a route names; a 404 for none. */
export function pieceTypeOf(config: AppConfig, name: string): SanitizedPieceType {
  const type = config.pieceTypes.get(name);
  if (!type) throw new NotFoundError();
  return type;
}

/** The document set and locale a publishing route acts on: the id's docId, the id's or cmsLocale's locale. */
export interface SetTarget {
  readonly docId: string;
  readonly locale: string;
}

/** The type and document set of a route that moves content between versions (publish, revert, localize). */
export function localizedTarget(config: AppConfig, caller: Caller, typeName: string, rawId: string): { type: SanitizedPieceType; target: SetTarget } {
  const type = pieceTypeOf(config, typeName);
  if (!type.options.localized) throw new InvalidRequestError(`${type.name} has no draft and published versions`);
  const parsed = parseDocumentId(rawId);
  const locale = splitLocale(config, caller.locale).locale ?? parsed.locale ?? config.defaultLocale;
  if (!config.locales.has(locale)) throw new NotFoundError();
  return { type, target: { docId: parsed.docId, locale } };
}
