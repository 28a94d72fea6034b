import type { ChangeLogStore, LoggedChange, StoredDocument } from '../../../storage/storage-adapter.js';
import type { Caller } from '../caller.js';
import type { DocumentOutput } from '../collaborators.js';
import { ExpiredError, InvalidRequestError } from '../../../errors/app-error.js';
import { canReadType, canViewDrafts } from '../../access/permissions.js';
import { ChangeAudience } from '../../changes/change-audience.js';
import { changesAfter, tombstoneOf, type Tombstone } from '../../changes/sync-changes.js';
import { decodeSyncToken, encodeSyncToken, type SyncBinding, type SyncPosition } from '../../changes/sync-token.js';
import { prepareList, presentPage, type ListDeps, type PreparedList } from './list.js';
import { pieceTypeOf } from '../caller.js';

export type SyncDeps = ListDeps & { readonly changeLog: ChangeLogStore };

/** A sync page: documents as a list shows them, tombstones, and the token of the next call. */
export interface SyncAnswer {
  items: DocumentOutput[];
  deleted: Tombstone[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

/** `@cms`: the route of every type (`GET /api/v1/@cms/sync`). */
export const allTypesRoute = '@cms';
const defaultLimit = 100;
// Parameters of the list the sync does not take: a sync is every document, in its own order.
const refused = ['page', 'perPage', 'cursor', 'sort', 'search', 'autocomplete', 'count', 'choices', 'counts', '_ids', 'archived', 'scheduled', 'fallback', 'skip'];
const unbound = new Set(['limit', 'syncToken', 'apikey', 'apiKey']);

/**
 * GET /api/v1/<type>/sync and /api/v1/@cms/sync: without `syncToken`, every version the caller
 * may read, walked by `_id` from a snapshot of the change log taken before the first page;
 * with one, what changed since: versions as a list shows them, tombstones for the versions the
 * caller could read that it no longer can. Rights, projections and filters are the list's.
 */
export async function sync(deps: SyncDeps, caller: Caller, route: string, query: Readonly<Record<string, unknown>>): Promise<SyncAnswer> {
  const limit = limitOf(query.limit, deps.config.limits.syncPageMax);
  const listQuery = listQueryOf(query, route);
  const lists = await Promise.all(typesOf(deps, caller, route, query.type).map((type) => prepareList(deps, caller, type, listQuery)));
  const binding: SyncBinding = { route, audience: audienceOf(caller), mode: caller.mode ?? '', locale: caller.locale ?? null, filters: canonical(query) };
  const key = await signingKeyOf(deps.changeLog);
  const token = query.syncToken;
  if (token !== undefined && (typeof token !== 'string' || token === '')) throw new InvalidRequestError('syncToken must be a token a sync answered', { parameter: 'syncToken' });
  const position = token === undefined ? null : decodeSyncToken(key, binding, token, 'syncToken');
  const page = !position || position.walk ? await walk(deps, lists, position, limit) : await delta(deps, caller, lists, position.seq, limit);
  const { next, done, ...answer } = page;
  return done ? { ...answer, nextSyncToken: encodeSyncToken(key, binding, next) } : { ...answer, nextPageToken: encodeSyncToken(key, binding, next) };
}

interface Page {
  items: DocumentOutput[];
  deleted: Tombstone[];
  next: SyncPosition;
  done: boolean;
}

/** The first sync, a page: the readable types one after the other, each by `_id` from where the last page stopped. */
async function walk(deps: SyncDeps, lists: readonly PreparedList[], position: SyncPosition | null, limit: number): Promise<Page> {
  // Taken before the first read: what commits during the walk comes again in the first delta.
  const seq = position?.seq ?? (await deps.changeLog.bounds()).latest;
  let index = position?.walk ? lists.findIndex((list) => list.type.name === position.walk!.type) : 0;
  if (index < 0) throw new InvalidRequestError('syncToken names a type this caller can no longer sync: sync again from scratch, without a token', { parameter: 'syncToken' });
  let after = position?.walk?.after ?? null;
  const items: DocumentOutput[] = [];
  while (index < lists.length && items.length < limit) {
    const list = lists[index]!;
    const room = limit - items.length;
    const bound = after === null ? {} : { after: { values: [], id: after } };
    const docs = await deps.store.find({ ...list.filtered, order: 'sort', sort: [{ field: '_id', direction: 1 }], ...bound, limit: room });
    items.push(...(await presentPage(deps, list, docs)));
    if (docs.length < room) [index, after] = [index + 1, null];
    else after = docs[docs.length - 1]!._id;
  }
  const walking = index < lists.length ? { walk: { type: lists[index]!.type.name, after } } : {};
  return { items, deleted: [], next: { seq, ...walking }, done: index >= lists.length };
}

/** A delta page: the changes after `seq`, the current versions read in one query per type, the rest tombstones. */
async function delta(deps: SyncDeps, caller: Caller, lists: readonly PreparedList[], seq: number, limit: number): Promise<Page> {
  // Only pruning loses changes. A position beyond the log's end is a read replica behind the one
  // that gave the token: nothing new yet, and the same position again.
  if ((await deps.changeLog.prunedThrough()) > seq) {
    throw new ExpiredError('The changes since this syncToken are no longer kept: sync again from scratch, without a token', { parameter: 'syncToken' });
  }
  const byType = new Map(lists.map((list) => [list.type.name, list]));
  const audience = new ChangeAudience(deps.config, caller.principal, { types: new Set(byType.keys()) });
  const selects = (change: LoggedChange) => {
    const list = byType.get(change.type);
    return list !== undefined && change.locale === list.locale && change.mode === list.mode;
  };
  const { changes, position, more } = await changesAfter(deps.changeLog, { audience, selects, seq, room: limit });
  const items: DocumentOutput[] = [];
  const found = new Set<string>();
  for (const list of lists) {
    const ids = [...changes.values()].filter((change) => change.last.type === list.type.name).map((change) => change.last.id);
    if (ids.length === 0) continue;
    const docs: StoredDocument[] = await deps.store.find({ ...list.filtered, type: list.type.name, ids });
    for (const doc of docs) found.add(doc._id);
    items.push(...(await presentPage(deps, list, docs)));
  }
  const deleted = [...changes.values()].filter((change) => !found.has(change.last.id) && change.readableBefore).map((change) => tombstoneOf(change.last));
  return { items, deleted, next: { seq: position }, done: !more };
}

function limitOf(raw: unknown, max: number): number {
  if (raw === undefined) return Math.min(defaultLimit, max);
  const limit = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= max)) throw new InvalidRequestError(`limit must be an integer from 1 to ${max}`, { parameter: 'limit', max });
  return limit;
}

/** The list's query without what only the sync takes; its paging, order and counting parameters are refused. */
function listQueryOf(query: Readonly<Record<string, unknown>>, route: string): Record<string, unknown> {
  const named = refused.find((name) => query[name] !== undefined) ?? (route !== allTypesRoute && query.type !== undefined ? 'type' : undefined);
  if (named) throw new InvalidRequestError(`A sync does not take "${named}": it answers every document the caller may read, page by page`, { parameter: named });
  return Object.fromEntries(Object.entries(query).filter(([name]) => !unbound.has(name) && name !== 'type'));
}

/** The types a sync reads, in name order: its route's, or every type the caller may read (in drafts: whose drafts it may read), `type` narrowing them. */
function typesOf(deps: SyncDeps, caller: Caller, route: string, rawTypes: unknown): string[] {
  if (route !== allTypesRoute) return [route];
  const named = rawTypes === undefined ? undefined : new Set(String(rawTypes).split(','));
  if (named) for (const name of named) pieceTypeOf(deps.config, name);
  return [...deps.config.pieceTypes.values()]
    .filter((type) => (!named || named.has(type.name)) && canReadType(caller.principal, type))
    .filter((type) => caller.mode !== 'draft' || !type.options.localized || canViewDrafts(caller.principal, type))
    .map((type) => type.name)
    .sort();
}

/** Who asks, as a token is bound to it: the user or API key and its role, or anonymous. */
function audienceOf(caller: Caller): string {
  const { principal } = caller;
  const who = principal.kind === 'user' ? `user:${principal.userId}` : principal.kind === 'apiKey' ? (caller.keyCallerId ?? `key:${principal.keyId}`) : 'anonymous';
  return `${who}:${principal.role ?? ''}`;
}

/** The query's filters in one spelling whatever their order (the token's binding). */
function canonical(query: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(Object.entries(query).filter(([name]) => !unbound.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// The key never changes once made: read once per store.
const signingKeys = new WeakMap<ChangeLogStore, Promise<string>>();

function signingKeyOf(log: ChangeLogStore): Promise<string> {
  let key = signingKeys.get(log);
  if (!key) signingKeys.set(log, (key = log.signingKey()));
  key.catch(() => signingKeys.delete(log));
  return key;
}
