import type { DocumentQuery, FilterCondition, KeysetBound, StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { DocumentCollaborators, DocumentOutput, ListResult } from '../collaborators.js';
import type { Principal } from '../../../core/principal.js';
import type { Mode } from '../../../core/ids.js';
import type { FilterContext } from '../../fields/field-type.js';
import type { Caller } from '../caller.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { canAccessApi, canReadType, readableArchived, requireDrafts, visibleValues } from '../../access/permissions.js';
import { parseListParams, type ListParams } from '../../query/list-params.js';
import { toTextSearch } from '../../query/text-search.js';
import { canSortOn, type ListQueries } from '../../query/list-query.js';
import { decodeCursor, encodeCursor, listDigest, type CursorValue } from '../../query/list-cursor.js';
import { pieceTypeOf, requestVersion } from '../caller.js';
import { requestedShape } from '../requested-shape.js';
import { reviewStageCondition } from '../review-state.js';
import { fillFallbackFields, localeChainOf, markFallbackFields, markFallbackLocale, unfilled } from '../locale-fallback.js';

export const maxPerPage = 100;

export type ListDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'queries' | 'indexer' | 'presenter' | 'areas'>;

/**
 * GET /api/v1/<type>: `query` is the whole query string. A caller without API access filters,
 * sorts, searches and counts only on what the public projection shows.
 */
export async function list(
  deps: ListDeps,
  caller: Caller,
  typeName: string,
  query: Readonly<Record<string, unknown>>,
): Promise<ListResult | { count: number }> {
  const { store, queries } = deps;
  const prepared = await prepareList(deps, caller, typeName, query);
  const { type, params, base, filtered } = prepared;
  if (params.count) return { count: await store.count(filtered) };
  const perPage = Math.min(params.perPage ?? type.options.perPage, maxPerPage);
  const walk = cursorWalkOf(deps, prepared);
  const place = params.cursor === undefined ? undefined : await placeOf(deps, prepared, walk, params.cursor);
  const skip = place === undefined ? (params.page - 1) * perPage : 0;
  // One more than the page tells whether another follows, without counting what comes after.
  const [total, found] = await Promise.all([store.count(filtered), findPage(deps, prepared, { skip, limit: perPage + 1, after: place?.bound })]);
  if (place !== undefined && found.length === 0) await assertPlaceHolds(deps, prepared, place.bound);
  const docs = found.slice(0, perPage);
  const currentPage = place?.page ?? params.page;
  const result: ListResult = {
    pages: Math.ceil(total / perPage),
    currentPage,
    nextCursor: found.length > perPage && walk !== undefined ? nextCursorOf(walk, docs.at(-1)!, currentPage + 1) : null,
    results: await presentPage(deps, prepared, docs),
  };
  const choiceArgs = { offered: prepared.offered, query: base, conditions: prepared.conditions, store, ctx: prepared.filterContext };
  const choices = await queries.choices({ ...choiceArgs, names: params.choices, withCounts: false });
  if (Object.keys(choices).length > 0) result.choices = choices;
  if (params.counts.length > 0) result.counts = await queries.choices({ ...choiceArgs, names: params.counts, withCounts: true });
  return result;
}

/**
 * The first page of a list (`perPage` of `query`), uncounted, narrowed by `narrowing` as well:
 * conditions on index keys that no list parameter offers (the drafts' `ownKeys`), for readers
 * that show a few documents of many types (the dashboard). The rights, projections and
 * parameters are the list's own.
 */
export async function firstResults(
  deps: ListDeps,
  caller: Caller,
  typeName: string,
  query: Readonly<Record<string, unknown>>,
  narrowing: readonly FilterCondition[] = [],
): Promise<DocumentOutput[]> {
  const prepared = await prepareList(deps, caller, typeName, query);
  const narrowed = { ...prepared, filtered: { ...prepared.filtered, conditions: [...(prepared.filtered.conditions ?? []), ...narrowing] } };
  return readPage(deps, narrowed, 0, Math.min(prepared.params.perPage ?? prepared.type.options.perPage, maxPerPage));
}

/** A list's query as the caller may run it: its rights checked, its parameters laundered. */
export interface PreparedList {
  readonly type: SanitizedPieceType;
  readonly principal: Principal;
  readonly locale: string | null;
  readonly mode: Mode | null;
  readonly params: ListParams;
  readonly fullAccess: boolean;
  readonly offered: ReturnType<ListQueries['filtersFor']>;
  readonly filterContext: FilterContext;
  readonly conditions: Map<string, readonly FilterCondition[]>;
  /** Without the field filters (what `choices` start from). */
  readonly base: DocumentQuery;
  readonly filtered: DocumentQuery;
}

export async function prepareList(deps: ListDeps, caller: Caller, typeName: string, query: Readonly<Record<string, unknown>>): Promise<PreparedList> {
  const { principal } = caller;
  const { store, queries } = deps;
  const type = pieceTypeOf(deps.config, typeName);
  const { locale, mode } = requestVersion(deps.config, type, caller);
  if (mode === 'draft') requireDrafts(principal, type);
  if (!canReadType(principal, type)) throw new NotFoundError();
  const { reviewStage, ...rest } = query;
  const params = parseListParams(rest);
  const byStage = reviewStageCondition(principal, type, reviewStage);
  // Schedules are the drafts' (their `scheduledPublish`): only who may read drafts may select by them.
  if (params.scheduled !== undefined) requireDrafts(principal, type);
  const fullAccess = canAccessApi(principal, type);
  const filterContext = queries.filterContext({ store, principal, locale, mode, fullAccess });
  const offered = queries.filtersFor(type, principal);
  const conditions = await queries.conditions(params.filters, offered, filterContext);
  const publicOnly = !fullAccess && deps.indexer.searchedTexts(type) === 'public';
  const base: DocumentQuery = {
    type: type.name,
    ...localesOf(deps, locale, params.fallback),
    mode,
    archived: readableArchived(principal, type, params.archived),
    visibility: visibleValues(principal),
    docIds: params.ids,
    scheduled: params.scheduled,
    search: params.search && toTextSearch(params.search.text, { prefix: params.search.prefix, publicOnly }),
  };
  const filtered = { ...base, conditions: [...[...conditions.values()].flat(), ...byStage] };
  return { type, principal, locale, mode, params, fullAccess, offered, filterContext, conditions, base, filtered };
}

/** One page of the prepared list, presented as the caller may see it; `after`: the page after that place. */
export async function readPage(deps: ListDeps, prepared: PreparedList, skip: number, limit: number, after?: KeysetBound): Promise<DocumentOutput[]> {
  return presentPage(deps, prepared, await findPage(deps, prepared, { skip, limit, after }));
}

/** The stored versions of a page of the prepared list, in its order. */
function findPage(deps: ListDeps, prepared: PreparedList, page: Pick<DocumentQuery, 'skip' | 'limit' | 'after'>): Promise<StoredDocument[]> {
  const { type, params, fullAccess } = prepared;
  return deps.store.find({ ...prepared.filtered, ...orderOf(deps.queries, type, params, fullAccess), ...page });
}

export async function presentPage(deps: ListDeps, prepared: PreparedList, docs: StoredDocument[]): Promise<DocumentOutput[]> {
  const { type, principal, locale, mode, params, base } = prepared;
  const { docs: shown, filled } = mode === 'published' ? await fillFallbackFields(deps, type, docs, base) : unfilled(docs);
  const presented = await deps.presenter.present(shown, { type, principal });
  // Marked after `project`, which keeps them whatever it names.
  return presented.map((output, index) => {
    const shaped = requestedShape(deps.areas, output, params);
    if (locale !== null) markFallbackLocale(shaped, shown[index]!, locale);
    markFallbackFields(shaped, filled.get(shown[index]!._id));
    return shaped;
  });
}

/**
 * How a list is walked by cursor: its digest, and its sort fields (`_id` aside), each with
 * whether the caller sees it. Undefined for an id list, whose order is the ids'.
 */
interface CursorWalk {
  readonly digest: string;
  readonly fields: readonly { readonly field: string; readonly shown: boolean }[];
}

function cursorWalkOf(deps: ListDeps, prepared: PreparedList): CursorWalk | undefined {
  const { type, params, fullAccess } = prepared;
  const order = orderOf(deps.queries, type, params, fullAccess);
  if (order.order === 'ids') return undefined;
  // A sort asked for is one the caller may use (`sortFor`); the type's own may name a field the
  // caller does not see, whose values then never reach it.
  const chosen = Array.isArray(params.sort);
  const fields = (order.sort ?? [])
    .filter(({ field }) => field !== '_id')
    .map(({ field }) => ({ field, shown: fullAccess || chosen || canSortOn(type, field, false) }));
  return { digest: listDigest({ ...prepared.filtered, ...order }, fullAccess), fields };
}

function nextCursorOf(walk: CursorWalk, last: StoredDocument, page: number): string {
  const shown = walk.fields.filter(({ shown }) => shown).map(({ field }) => sortValueOf(last, field));
  return encodeCursor({ page, shown, id: last._id }, walk.digest);
}

/**
 * The keyset bound a cursor names. The values the caller could not be given are read again from
 * the document itself, among those the list may show it: gone since (deleted, unpublished,
 * archived), it no longer marks a place: a 400 that says to start again.
 */
async function placeOf(deps: ListDeps, prepared: PreparedList, walk: CursorWalk | undefined, text: string): Promise<{ bound: KeysetBound; page: number }> {
  if (walk === undefined) throw new InvalidRequestError('cursor: not with _ids, whose order is the ids\'', { parameter: 'cursor' });
  const cursor = decodeCursor(text, walk.digest, walk.fields.filter(({ shown }) => shown).length);
  const shown = [...cursor.shown];
  if (shown.length === walk.fields.length) return { bound: { values: shown, id: cursor.id }, page: cursor.page };
  const { type, mode, filtered } = prepared;
  const [last] = await deps.store.find({ type: type.name, ids: [cursor.id], mode, archived: filtered.archived, visibility: filtered.visibility, reverseIds: false });
  if (last === undefined) throw placeGone();
  const values = walk.fields.map(({ field, shown: seen }) => (seen ? shown.shift()! : sortValueOf(last, field)));
  return { bound: { values, id: cursor.id }, page: cursor.page };
}

/**
 * A search by relevance ranks the cursor's document anew on each page (the store carries no
 * rank): gone since, or no longer matching, it leaves nothing after it, and an empty page would
 * end the walk early. Such a cursor is refused instead, as one whose hidden values are gone.
 */
async function assertPlaceHolds(deps: ListDeps, prepared: PreparedList, bound: KeysetBound): Promise<void> {
  const { type, params, fullAccess } = prepared;
  if (orderOf(deps.queries, type, params, fullAccess).order !== 'relevance') return;
  if ((await deps.store.count({ ...prepared.filtered, type: type.name, ids: [bound.id] })) === 0) throw placeGone();
}

function placeGone(): InvalidRequestError {
  return new InvalidRequestError('cursor: the document it continues after is no longer listed: ask the first page again', { parameter: 'cursor' });
}

/** A stored version's value of a sort field, as the store sorts it: arrays and objects as their JSON. */
function sortValueOf(doc: StoredDocument, field: string): CursorValue {
  const value = doc[field];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * The locales a list reads: with `fallback`, one version per document, the first along the
 * locale's chain (locale-fallback.ts), in the same query. A locale without a fallback is its own
 * chain: its list is the plain one, which the list indexes and kept counts serve, where a chain
 * tests each version for an earlier one (the admin asks every localized list with `fallback`).
 */
function localesOf(deps: Pick<ListDeps, 'config'>, locale: string | null, fallback: boolean): Pick<DocumentQuery, 'locale' | 'localeChain'> {
  const chain = fallback && locale !== null ? localeChainOf(deps.config, locale) : [];
  return chain.length > 1 ? { localeChain: chain } : { locale };
}

/** `_ids` keep their order; a search ranks by relevance unless a sort is given. */
function orderOf(queries: ListQueries, type: SanitizedPieceType, params: ListParams, fullAccess: boolean): Pick<DocumentQuery, 'order' | 'sort'> {
  const explicit = Array.isArray(params.sort) ? queries.sortFor(type, params.sort, fullAccess) : undefined;
  const sort = explicit ?? sortOf(type);
  if (params.ids) return { order: 'ids', sort };
  if (params.search && (params.sort === 'relevance' || !explicit)) return { order: 'relevance', sort };
  return { order: 'sort', sort };
}

function sortOf(type: SanitizedPieceType) {
  return Object.entries(type.options.sort).map(([field, direction]) => ({ field, direction }));
}
