import type { LocationQuery, LocationQueryRaw } from 'vue-router';
import type { Query } from '../api/client';
import type { PieceTypeSchema } from '../api/types';
import { emptyFilterValue, filterParam, isActive, takesChoices, type FilterDef, type FilterValue } from './filters';

/**
 * Everything that decides what the list shows. It lives in the URL query (so Back works and a
 * link shows the same list) with short keys: `page`, `perPage`, `q`, `sort=title` / `sort=-updatedAt`,
 * `archived=1`, and `f.<field>` (choice, boolean; repeated for the values ticked of an `anyOf`
 * filter) or `f.<field>.from` / `.to` (date ranges).
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
  /** A column the schema says is sortable. */
  readonly field: string;
  readonly direction: 1 | -1;
}

export const perPageChoices = [10, 25, 50, 100] as const;

function text(value: LocationQuery[string] | undefined): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

function texts(value: LocationQuery[string] | undefined): string[] {
  const all = Array.isArray(value) ? value : [value];
  return all.filter((item): item is string => typeof item === 'string' && item !== '');
}

function positive(value: string): number | undefined {
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

/** `-price` as a sort, when `price` is one of the `sortable` columns. */
export function readSort(value: string, sortable: readonly string[]): Sort | undefined {
  const field = value.replace(/^-/, '');
  return sortable.includes(field) ? { field, direction: value.startsWith('-') ? -1 : 1 } : undefined;
}

export function sortText(sort: Sort): string {
  return `${sort.direction < 0 ? '-' : ''}${sort.field}`;
}

/** The state of a URL query; without a `sort` there, the one the user last chose (`keptSort`). */
export function readListState(query: LocationQuery, defs: readonly FilterDef[], sortable: readonly string[], keptSort = ''): ListState {
  const filters: Record<string, FilterValue> = {};
  for (const def of defs) {
    const key = `f.${def.name}`;
    const values = def.kind === 'anyOf' ? texts(query[key]) : [];
    filters[def.name] = { value: def.kind === 'anyOf' ? '' : text(query[key]), values, from: text(query[`${key}.from`]), to: text(query[`${key}.to`]) };
  }
  return {
    page: positive(text(query.page)) ?? 1,
    perPage: positive(text(query.perPage)),
    search: text(query.q),
    sort: readSort(text(query.sort) || keptSort, sortable),
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
  if (state.sort) query.sort = sortText(state.sort);
  if (state.archived) query.archived = '1';
  for (const [name, filter] of Object.entries(state.filters)) {
    if (filter.value) query[`f.${name}`] = filter.value;
    if (filter.values.length) query[`f.${name}`] = [...filter.values];
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

/** What every row needs besides its columns: its link, status, schedule and permissions. */
const rowProperties = ['title', 'cmsDocId', 'cmsLocale', 'lastPublishedAt', 'modified', 'archived', 'scheduledPublish', 'scheduledUnpublish', '_edit', '_publish', '_delete'];

/** Only what the list shows (the bodies of documents can be large): the rows' own properties and the shown columns. */
function listProjection(columns: readonly string[]): Record<string, 1> {
  const byWhom = columns.includes('updatedAt') ? ['updatedBy'] : [];
  return Object.fromEntries([...rowProperties, ...columns, ...byWhom].map((name) => [name, 1]));
}

/**
 * The ONE request of the list: the page of drafts with the shown `columns` and, through
 * `choices`, the values of the choice filters.
 */
export function listApiQuery(state: ListState, defs: readonly FilterDef[], type: PieceTypeSchema, columns: readonly string[]): Query {
  const query: Query = {
    page: state.page,
    perPage: state.perPage ?? type.perPage,
    project: listProjection(columns),
  };
  // Word beginnings, as typed: "sprin" finds "spring" (the original's list search does the same).
  if (state.search) query.autocomplete = state.search;
  if (state.sort) query.sort = { [state.sort.field]: state.sort.direction };
  if (state.archived) query.archived = '1';
  const choiceNames = defs.filter(takesChoices).map((def) => def.name);
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
