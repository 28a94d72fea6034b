import type { SortDirection } from '../../storage/storage-adapter.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { isPlainObject } from '../fields/nested.js';
import type { RenderMode } from '../rendering/area-renderer.js';

export interface SortTerm {
  readonly field: string;
  readonly direction: SortDirection;
}

/**
 * The generic list parameters of the original (`page`, `search`, `sort`, `project`, `_ids`,
 * `archived`, `count`, `choices`, `counts`, `renderAreas`), laundered from the query string as
 * qs parsed it. Every other key is a candidate field filter, judged by the piece type later.
 */
export interface ListParams {
  readonly page: number;
  readonly perPage?: number;
  /** `cursor`: the page after the place a previous answer's `nextCursor` names (list-cursor.ts); not with `page`. */
  readonly cursor?: string;
  /** Undefined: archived and live alike (`archived=any`). */
  readonly archived: boolean | undefined;
  readonly count: boolean;
  /** `fallback=true`: a document missing in the asked locale shows its version along the locale's fallback chain. */
  readonly fallback: boolean;
  /** `_ids[]`: these documents only, in this order (`cmsDocId`s). */
  readonly ids?: readonly string[];
  /** Inclusion (`true`) or exclusion (`false`) projection. */
  readonly project?: Readonly<Record<string, boolean>>;
  /** `relevance` for `sort=search`. */
  readonly sort?: readonly SortTerm[] | 'relevance';
  readonly search?: { readonly text: string; readonly prefix: boolean };
  readonly choices: readonly string[];
  readonly counts: readonly string[];
  readonly render?: RenderMode;
  /** `scheduled`: only documents with a schedule in this status (`any`: pending or failed). */
  readonly scheduled?: 'pending' | 'failed' | 'any';
  /** The remaining parameters, by name: field filters when the type has one of that name. */
  readonly filters: ReadonlyMap<string, unknown>;
}

/** Parameters of the original that are not field filters; `skip`/`limit` are overridden by paging. */
const generic = new Set([
  ...['page', 'perPage', 'cursor', 'cmsMode', 'cmsLocale', 'apikey', 'apiKey', 'search', 'autocomplete', 'archived'],
  ...['count', '_ids', 'project', 'sort', 'choices', 'counts', 'renderAreas', 'render-areas', 'skip', 'limit', 'scheduled'],
  ...['fallback', 'withPublished', 'viewContext', 'attachments', 'dynamicChoices', 'aposMode', 'aposLocale'],
]);

const maxIds = 1000;
const maxSearchLength = 500;

export function parseListParams(query: Readonly<Record<string, unknown>>): ListParams {
  refuseDynamicChoices(query.dynamicChoices);
  return {
    page: positiveInteger(query.page, 'page') ?? 1,
    perPage: positiveInteger(query.perPage, 'perPage'),
    cursor: parseCursor(query.cursor, query.page),
    archived: parseArchived(query.archived),
    count: query.count === undefined ? false : flag(query.count, 'count'),
    fallback: query.fallback === undefined ? false : flag(query.fallback, 'fallback'),
    ids: parseIds(query._ids),
    project: projectionOf(query),
    sort: parseSort(query.sort),
    search: parseSearch(query.search, query.autocomplete),
    choices: nameList(query.choices, 'choices'),
    counts: nameList(query.counts, 'counts'),
    render: renderingOf(query),
    scheduled: parseScheduled(query.scheduled),
    filters: new Map(Object.entries(query).filter(([key]) => !generic.has(key))),
  };
}

/** `page`, `perPage` and `cursor` alone, for the routes paginated as a list that take no other list parameter (history). */
export function parsePaging(query: Readonly<Record<string, unknown>>): { page: number; perPage?: number; cursor?: string } {
  return { page: positiveInteger(query.page, 'page') ?? 1, perPage: positiveInteger(query.perPage, 'perPage'), cursor: parseCursor(query.cursor, query.page) };
}

/** The cursor's text, read by the list that knows what it must hold; a page number names another place. */
function parseCursor(raw: unknown, page: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (page !== undefined) invalid('cursor', 'cannot be used with page: a cursor names its page');
  return single(raw, 'cursor');
}

/** `archived` on GET one: the same spellings, live documents by default. */
export function parseArchived(raw: unknown): boolean | undefined {
  if (raw === undefined) return false;
  const text = single(raw, 'archived').trim().toLowerCase();
  if (text === 'any' || text === 'null') return undefined;
  return flag(text, 'archived');
}

/** `scheduled=true|any|pending|failed` (scheduled publishing): documents with such a schedule in the list's locale. */
function parseScheduled(raw: unknown): ListParams['scheduled'] {
  if (raw === undefined) return undefined;
  const text = single(raw, 'scheduled').trim().toLowerCase();
  if (text === 'pending' || text === 'failed' || text === 'any') return text;
  if (truthy.has(text)) return 'any';
  return invalid('scheduled', 'must be true, any, pending or failed');
}

/**
 * `renderAreas=true|1` (or the original's `render-areas`) replaces areas by their HTML, `inline`
 * adds HTML to each widget.
 */
export function renderingOf(query: Readonly<Record<string, unknown>>): RenderMode | undefined {
  const raw = query.renderAreas ?? query['render-areas'];
  if (raw === undefined) return undefined;
  const text = single(raw, 'renderAreas').trim().toLowerCase();
  if (text === 'inline') return 'inline';
  return flag(text, 'renderAreas') ? 'replace' : undefined;
}

function invalid(parameter: string, message: string): never {
  throw new InvalidRequestError(`${parameter}: ${message}`, { parameter });
}

function single(raw: unknown, parameter: string): string {
  return typeof raw === 'string' ? raw : invalid(parameter, 'must be a single value');
}

const truthy = new Set(['1', 'true', 'yes', 'on']);
const falsy = new Set(['0', 'false', 'no', 'off', '']);

function flag(raw: unknown, parameter: string): boolean {
  const text = single(raw, parameter).trim().toLowerCase();
  if (truthy.has(text)) return true;
  if (falsy.has(text)) return false;
  return invalid(parameter, 'must be true or false');
}

function positiveInteger(raw: unknown, parameter: string): number | undefined {
  if (raw === undefined) return undefined;
  const text = single(raw, parameter);
  // Digits only: `Number('1e400')` would be Infinity.
  return /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : invalid(parameter, 'must be a positive integer');
}

/** Only an array selects documents; any other value selects none, as in the original. */
function parseIds(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) return [];
  if (raw.length > maxIds) invalid('_ids', `at most ${maxIds} ids`);
  return raw.map((id) => {
    const text = single(id, '_ids');
    // A full `_id` names its document set; the list's own locale and mode apply.
    return text.split(':')[0]!;
  });
}

/** `project[title]=1` (inclusion) or `project[body]=0` (exclusion): on the list and on GET one, as the original's. */
export function projectionOf(query: Readonly<Record<string, unknown>>): Record<string, boolean> | undefined {
  const raw = query.project;
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) return invalid('project', 'must be an object: project[title]=1');
  const projection: Record<string, boolean> = Object.create(null);
  for (const [key, value] of Object.entries(raw)) projection[key] = flag(value, `project[${key}]`);
  const kinds = new Set(Object.values(projection));
  if (kinds.size > 1) invalid('project', 'cannot mix included and excluded properties');
  return kinds.size === 0 ? undefined : projection;
}

function parseSort(raw: unknown): SortTerm[] | 'relevance' | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'search') return 'relevance';
  if (!isPlainObject(raw)) return invalid('sort', 'must be an object: sort[title]=1, or sort=search');
  return Object.entries(raw).map(([field, value]) => {
    const text = single(value, `sort[${field}]`).trim();
    if (text !== '1' && text !== '-1') invalid(`sort[${field}]`, 'must be 1 or -1');
    return { field, direction: Number(text) as SortDirection };
  });
}

/** `search` wins over `autocomplete`, which matches words by their beginning. */
function parseSearch(search: unknown, autocomplete: unknown): ListParams['search'] {
  const [raw, prefix] = search !== undefined ? [search, false] : [autocomplete, true];
  if (raw === undefined) return undefined;
  const text = single(raw, prefix ? 'autocomplete' : 'search').trim();
  if (text.length > maxSearchLength) invalid(prefix ? 'autocomplete' : 'search', `at most ${maxSearchLength} characters`);
  return text === '' ? undefined : { text, prefix };
}

/**
 * The original's `dynamicChoices[]=<filter>` asks for the choices a filter's server method
 * computes, and is a 400 for a filter without one. Choices here come from the configuration only
 * (a `choices` naming a method is refused at start), so every name asked for is such a filter.
 */
function refuseDynamicChoices(raw: unknown): void {
  const [name] = nameList(raw, 'dynamicChoices');
  if (name !== undefined) invalid('dynamicChoices', `no filter computes its choices on the server ("${name}"): choices come from the configuration`);
}

/** `choices=title,visibility` or `choices[]=title`. */
function nameList(raw: unknown, parameter: string): string[] {
  if (raw === undefined) return [];
  const entries = Array.isArray(raw) ? raw.map((entry) => single(entry, parameter)) : single(raw, parameter).split(',');
  return [...new Set(entries.map((name) => name.trim()).filter(Boolean))];
}
