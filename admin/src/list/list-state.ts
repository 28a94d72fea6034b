import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import type { Query } from '../api/client';
import type { PieceTypeSchema } from '../api/types';
import { emptyFilterValue, filterParam, isActive, type FilterDef, type FilterValue } from './filters';

/**
 * Everything that decides what the list shows. It lives in the URL query (so Back works and a
 * link shows the same list) with short keys: `page`, `perPage`, `q`, `sort=title` / `sort=-updatedAt`,
 * `archived=1`, and `f.<field>` (choice, boolean) or `f.<field>.from` / `.to` (date ranges).
 */
export interface ListState {
  page: number;
  perPage: number | undefined;
  search: string;
  sort: Sort | undefined;
  archived: boolean;
  filters: Record<string, FilterValue>;
}

export interface Sort {
  readonly field: SortField;
  readonly direction: 1 | -1;
}

/** The columns the list sorts on: both have an index on the server, so sorting stays cheap. */
export const sortFields = ['title', 'updatedAt'] as const;
export type SortField = (typeof sortFields)[number];

export const perPageChoices = [10, 25, 50, 100] as const;

function text(value: LocationQuery[string] | undefined): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

function positive(value: string): number | undefined {
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

function readSort(value: string): Sort | undefined {
  const field = value.replace(/^-/, '');
  return (sortFields as readonly string[]).includes(field) ? { field: field as SortField, direction: value.startsWith('-') ? -1 : 1 } : undefined;
}

export function readListState(query: LocationQuery, defs: readonly FilterDef[]): ListState {
  const filters: Record<string, FilterValue> = {};
  for (const def of defs) {
    const key = `f.${def.name}`;
    filters[def.name] = { value: text(query[key]), from: text(query[`${key}.from`]), to: text(query[`${key}.to`]) };
  }
  return {
    page: positive(text(query.page)) ?? 1,
    perPage: positive(text(query.perPage)),
    search: text(query.q),
    sort: readSort(text(query.sort)),
    archived: text(query.archived) === '1',
    filters,
  };
}

/** The URL query of a state; defaults are left out so links stay short. */
export function listStateQuery(state: ListState): LocationQueryRaw {
  const query: LocationQueryRaw = {};
  if (state.page > 1) query.page = String(state.page);
  if (state.perPage) query.perPage = String(state.perPage);
  if (state.search) query.q = state.search;
  if (state.sort) query.sort = `${state.sort.direction < 0 ? '-' : ''}${state.sort.field}`;
  if (state.archived) query.archived = '1';
  for (const [name, filter] of Object.entries(state.filters)) {
    if (filter.value) query[`f.${name}`] = filter.value;
    if (filter.from) query[`f.${name}.from`] = filter.from;
    if (filter.to) query[`f.${name}.to`] = filter.to;
  }
  return query;
}

/** Every key the list owns in the URL, so other keys (the shell's `locale`) survive a change. */
export function isListKey(key: string): boolean {
  return ['page', 'perPage', 'q', 'sort', 'archived'].includes(key) || key.startsWith('f.');
}

export function activeFilterCount(state: ListState): number {
  return Object.values(state.filters).filter(isActive).length;
}

export function withoutFilters(state: ListState): ListState {
  const filters = Object.fromEntries(Object.keys(state.filters).map((name) => [name, emptyFilterValue()]));
  return { ...state, page: 1, filters };
}

/** Only what the list shows: the bodies of documents can be large. */
const listProjection = Object.fromEntries(
  ['title', 'cmsDocId', 'cmsLocale', 'updatedAt', 'updatedBy', 'lastPublishedAt', 'modified', 'archived', 'scheduledPublish', 'scheduledUnpublish', '_edit', '_publish', '_delete'].map(
    (name) => [name, 1],
  ),
);

/**
 * The ONE request of the list: the page of drafts and, through `choices`, the values of the
 * choice filters.
 */
export function listApiQuery(state: ListState, defs: readonly FilterDef[], type: PieceTypeSchema): Query {
  const query: Query = {
    page: state.page,
    perPage: state.perPage ?? type.perPage,
    project: listProjection,
  };
  // Word beginnings, as typed: "sprin" finds "spring" (the original's list search does the same).
  if (state.search) query.autocomplete = state.search;
  if (state.sort) query.sort = { [state.sort.field]: state.sort.direction };
  if (state.archived) query.archived = '1';
  const choiceNames = defs.filter((def) => def.kind === 'choice').map((def) => def.name);
  if (choiceNames.length) query.choices = choiceNames.join(',');
  for (const def of defs) {
    const filter = state.filters[def.name];
    if (filter) query[def.name] = filterParam(def, filter);
  }
  return query;
}

/** The order the list is in, for aria-sort: the chosen sort, relevance while searching, or the type's. */
export function effectiveSort(state: ListState, type: PieceTypeSchema): { field: string; direction: 1 | -1 } | undefined {
  if (state.sort) return state.sort;
  if (state.search) return undefined;
  const [field, direction] = Object.entries(type.sort)[0] ?? [];
  return field && direction ? { field, direction } : undefined;
}
