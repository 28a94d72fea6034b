import { createHash } from 'node:crypto';
import type { DocumentQuery, IndexValue } from '../../storage/storage-adapter.js';
import { InvalidRequestError } from '../../errors/app-error.js';

/** A sort value as a cursor carries it. */
export type CursorValue = IndexValue | boolean | null;

/**
 * Where a list walked by cursor stands: after the document `id`, whose sort values the caller may
 * see are `shown` (in the sort's order, the others left out), on the walk's page `page`.
 */
export interface ListCursor {
  readonly page: number;
  readonly shown: readonly CursorValue[];
  readonly id: string;
}

/** Longer cursors are refused unread; a cursor holds one document's sort values and its id. */
export const maxCursorLength = 4096;
const maxPage = 1e9;
const checksumLength = 16;

/**
 * The list a cursor belongs to, as a digest: everything that selects and orders its documents
 * (type, locale or chain, mode, archived, visibility, schedule, filters, search, order, sort) and
 * whether the caller sees every field. A cursor carried to another list, another sort or other
 * filters no longer matches, and is refused rather than answered with a wrong page.
 */
export function listDigest(query: DocumentQuery, fullAccess: boolean): string {
  const { type, locale, localeChain, mode, archived, visibility, docIds, scheduled, search, order, sort } = query;
  // The filters' order in the query string does not change the list.
  const conditions = (query.conditions ?? []).map((condition) => JSON.stringify(condition)).sort();
  return digestOf({ type, locale, localeChain, mode, archived, visibility, docIds, scheduled, search, order, sort, conditions, fullAccess });
}

/** The digest of what a list is (its JSON), for cursors of lists other than documents' (audit, history). */
export function digestOf(list: unknown): string {
  return createHash('sha256').update(JSON.stringify(list)).digest('base64url').slice(0, 22);
}

/**
 * The opaque text of a cursor: base64url JSON of the place and the list's digest, then a
 * checksum of it. The checksum is not a signature: it catches a cursor cut or altered on its way;
 * a cursor forged in full can only start a page at a place the caller could name anyway (values
 * of the fields it sees, an id it was answered).
 */
export function encodeCursor(cursor: ListCursor, digest: string): string {
  const body = Buffer.from(JSON.stringify([1, digest, cursor.page, cursor.shown, cursor.id])).toString('base64url');
  return `${body}.${checksumOf(body)}`;
}

/** Reads a cursor of the list `digest`, holding `shownCount` values; anything else is a 400. */
export function decodeCursor(text: string, digest: string, shownCount: number): ListCursor {
  if (text.length > maxCursorLength) return refused(`at most ${maxCursorLength} characters`);
  const [body, checksum, ...rest] = text.split('.');
  if (body === undefined || checksum === undefined || rest.length > 0 || !/^[A-Za-z0-9_-]+$/.test(body) || checksum !== checksumOf(body)) {
    return refused('is not a cursor this server gave');
  }
  const decoded = parsed(body);
  if (!Array.isArray(decoded) || decoded.length !== 5 || decoded[0] !== 1) return refused('is not a cursor this server gave');
  const [, listOf, page, shown, id] = decoded as unknown[];
  if (listOf !== digest) return refused('belongs to another list: its type, sort, filters, search, locale or mode differ');
  if (!Number.isSafeInteger(page) || (page as number) < 2 || (page as number) > maxPage) return refused('is not a cursor this server gave');
  if (!Array.isArray(shown) || shown.length !== shownCount || !shown.every(isCursorValue)) return refused('is not a cursor this server gave');
  if (typeof id !== 'string' || id === '') return refused('is not a cursor this server gave');
  return { page: page as number, shown, id };
}

function checksumOf(body: string): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, checksumLength);
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isCursorValue(value: unknown): value is CursorValue {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function refused(message: string): never {
  throw new InvalidRequestError(`cursor: ${message}`, { parameter: 'cursor' });
}
