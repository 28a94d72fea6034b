import type { Principal } from '../../core/principal.js';
import type { AuditQuery, AuditRecord, StorageAdapter } from '../../storage/storage-adapter.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { refusal } from '../../core/refusal.js';
import { namesCalendarDate } from '../fields/date.js';
import { decodeCursor, digestOf, encodeCursor, type ListCursor } from '../query/list-cursor.js';

export const defaultAuditPerPage = 50;
/** As a piece list's cap. */
export const maxAuditPerPage = 100;
const maxFilterLength = 200;
const filterNames = ['actor', 'type', 'action'] as const;
const queryNames = [...filterNames, 'since', 'until', 'page', 'perPage', 'cursor'] as const;
// What a query may name: its own parameters, and the API key a client may send in any query string.
const knownParameters: ReadonlySet<string> = new Set([...queryNames, 'apikey', 'apiKey']);
// An ISO 8601 time as `Date.prototype.toISOString` writes it, or a date or a time with an offset:
// what the records hold (`at`) compares as text only once it is normalized to the former.
const isoTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export interface AuditPage {
  readonly pages: number;
  readonly currentPage: number;
  /** The `cursor` of the next page, null on the last. */
  readonly nextCursor: string | null;
  readonly results: AuditRecord[];
}

/** What the HTTP layer reads of the audit trail (`routes/audit.ts`): it knows no store. */
export class AuditReader {
  readonly #storage: Pick<StorageAdapter, 'audit'>;

  constructor(storage: Pick<StorageAdapter, 'audit'>) {
    this.#storage = storage;
  }

  /**
   * GET /api/v1/@cms/audit: the trail, newest first, a page at a time, narrowed by actor (a
   * user's `_id` or username), type, action and time. Admins only, refused before anything is read.
   */
  async list(principal: Principal, query: Readonly<Record<string, unknown>>): Promise<AuditPage> {
    if (principal.role !== 'admin') throw refusal(principal, 'admin', 'Reading the audit trail');
    const filter = auditQueryOf(query);
    const perPage = Math.min(positiveInteger(query.perPage, 'perPage') ?? defaultAuditPerPage, maxAuditPerPage);
    // The filters make the list: a cursor of another is refused.
    const digest = digestOf({ list: 'audit', ...filter });
    const place = cursorOf(query, digest);
    const page = place?.page ?? positiveInteger(query.page, 'page') ?? 1;
    const offset = place === undefined ? (page - 1) * perPage : 0;
    const { audit } = this.#storage;
    // One more than the page tells whether another follows.
    const [total, found] = await Promise.all([audit.count(filter), audit.list(filter, { offset, limit: perPage + 1, after: place?.id })]);
    const results = found.slice(0, perPage);
    const nextCursor = found.length > perPage ? encodeCursor({ page: page + 1, shown: [], id: results.at(-1)!.id }, digest) : null;
    return { pages: Math.ceil(total / perPage), currentPage: page, nextCursor, results };
  }
}

/** The place a `cursor` names (list-cursor.ts), read against the list it must belong to; not with `page`. */
function cursorOf(query: Readonly<Record<string, unknown>>, digest: string): ListCursor | undefined {
  if (query.cursor === undefined) return undefined;
  if (query.page !== undefined) throw new InvalidRequestError('cursor: cannot be used with page: a cursor names its page', { parameter: 'cursor' });
  if (typeof query.cursor !== 'string') throw new InvalidRequestError('cursor: must be a single value', { parameter: 'cursor' });
  return decodeCursor(query.cursor, digest, 0);
}

/**
 * The filters of a query string, each checked: a string of bounded length, times valid ISO 8601
 * on a day that exists. Any other parameter (`sort`, a misspelt filter) is refused rather than
 * ignored: a filter that silently does nothing answers the whole trail.
 */
function auditQueryOf(query: Readonly<Record<string, unknown>>): AuditQuery {
  const unknown = Object.keys(query).find((name) => !knownParameters.has(name));
  if (unknown !== undefined) {
    const name = unknown.slice(0, maxFilterLength);
    throw new InvalidRequestError(`Unknown parameter ${JSON.stringify(name)}: the audit trail takes ${queryNames.join(', ')}`, { path: name });
  }
  const filter: { -readonly [K in keyof AuditQuery]: string } = {};
  for (const name of filterNames) {
    const value = single(query[name], name);
    if (value !== undefined) filter[name] = value;
  }
  for (const name of ['since', 'until'] as const) {
    const value = single(query[name], name);
    if (value !== undefined) filter[name] = isoTimeOf(value, name);
  }
  return filter;
}

function single(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '' || raw.length > maxFilterLength) {
    throw new InvalidRequestError(`${name} must be one non-empty string of at most ${maxFilterLength} characters`, { path: name });
  }
  return raw;
}

/**
 * The time as the records write it (UTC, milliseconds), so that text comparison is time order.
 * `Date.parse` rolls 2026-02-30 over into March: the day must exist.
 */
function isoTimeOf(value: string, name: string): string {
  const time = isoTime.test(value) && namesCalendarDate(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw new InvalidRequestError(`${name} must be an ISO 8601 time, such as 2026-01-31T12:00:00Z`, { path: name });
  return new Date(time).toISOString();
}

function positiveInteger(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,8}$/.test(raw)) throw new InvalidRequestError(`${name} must be a positive integer`, { path: name });
  return Number(raw);
}
