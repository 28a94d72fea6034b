import { assertTypedLookup, type DocumentQuery, type IndexValue, type KeysetBound, type SortDirection } from '../storage-adapter.js';
import { afterBoundCondition, boundValuesOf, type BoundTerm } from '../keyset-bound.js';
import { beginning, compileCondition, inPartition, slugIs, valueIndexes, type ValuePartition } from './postgres-conditions.js';
import { compileSearch, relevanceExpression, searchCondition, type CompiledSearch } from './postgres-search.js';
import { Params, type SqlType } from './statements.js';
import { keyLength } from './migrations.js';
import { selectsWholeList } from '../held-values.js';
import { earlierVersionIds } from '../locale-chain-reads.js';

/** One parameterized statement: `sql` never contains a value, only placeholders. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

const sortColumns: ReadonlyMap<string, string> = new Map([
  ['updatedAt', 'documents.updated_at'],
  ['createdAt', 'documents.created_at'],
  ['titleSortified', 'documents.title_sortified'],
  ['slug', 'documents.slug'],
  ['_id', 'documents.id'],
]);

// The service validates sort fields first; anything else is refused here too.
const propertyName = /^[A-Za-z_][A-Za-z0-9_]*$/;

// The document's JSON for reading one property. PostgreSQL stores a \u0000 escape in json, but
// fails on reading any property of such a document; it is read with U+FFFD in its place instead.
const readableData = `replace(documents.data::text, '\\u0000', '\\ufffd')::json`;

/** The documents a query selects: the FROM clause (with its joins) and the WHERE clause. */
interface Selection {
  readonly from: string;
  readonly where: string;
  /** The search to rank by; only for `order: 'relevance'` with a word to search for. */
  readonly ranked?: CompiledSearch;
  /** Whether `wanted.position`, the position in the id list, is there to order by. */
  readonly positioned: boolean;
}

/**
 * Compiles a DocumentQuery into one `SELECT data` statement, stably ordered and paged. The page
 * is chosen first from the sort keys alone, which the list indexes hold (an index-only scan),
 * and only its rows' data are read: skipping to page 250 walks index entries, not 2,500 documents.
 */
export function compileFindQuery(query: DocumentQuery): CompiledQuery {
  const params = new Params();
  let selection = compileSelection(query, params, { orderByIds: query.order === 'ids', rank: query.order === 'relevance' });
  const order = compileOrder(query, selection, params);
  if (query.after !== undefined) selection = boundedSelection(query, selection, params, query.after);
  const page = compilePage(query, params);
  const keys = order.map((term, n) => `${term.expression} AS k${n}`).join(', ');
  const inner = `SELECT documents.seq AS seq, ${keys}${selectFrom(selection)}`
    + ` ORDER BY ${order.map((term, n) => `k${n} ${term.keyword}`).join(', ')}${page}`;
  return {
    sql: `SELECT documents.data FROM (${inner}) AS page JOIN documents ON documents.seq = page.seq`
      + ` ORDER BY ${order.map((term, n) => `page.k${n} ${term.keyword}`).join(', ')}`,
    params: params.values,
  };
}

/** Compiles the filters of a DocumentQuery into one `SELECT count(*)`; sort and paging are ignored. */
export function compileCountQuery(query: DocumentQuery): CompiledQuery {
  const params = new Params();
  const selection = compileSelection(query, params, unordered);
  return { sql: `SELECT count(*) AS count${selectFrom(selection)}`, params: params.values };
}

/** Distinct values of `key` with their document counts among what the query selects: numbers, then texts. */
export function compileDistinctValuesQuery(query: DocumentQuery, key: string): CompiledQuery {
  const params = new Params();
  const selection = compileSelection(query, params, unordered);
  const partition = valuePartition(query);
  const keyIs = `v.key = ${params.add(key, 'text')}`;
  // With a partition, the values of the key are read from each of the three value indexes (no one
  // index holds them all); without one, the (seq, key) index finds each selected document's.
  const values = partition
    ? valueIndexes.map(({ where, columns }) => `SELECT ${columns}, v.seq FROM document_values AS v
        WHERE ${inPartition(partition, params)} AND ${keyIs} AND ${where}`).join(' UNION ALL ')
    : `SELECT v.num, v.txt, v.seq FROM document_values AS v WHERE ${keyIs}`;
  return {
    sql: `SELECT v.num, v.txt, count(*) AS count FROM (${values}) AS v
      WHERE v.seq IN (SELECT documents.seq${selectFrom(selection)})
      GROUP BY v.num, v.txt ORDER BY v.num ASC NULLS LAST, v.txt ASC`,
    params: params.values,
  };
}

/**
 * The distinct values of `key` in a whole list (selectsWholeList), in compileDistinctValuesQuery's
 * order, without counts (a list's `choices`). Numbers and short texts are each walked along their
 * value index one value at a time (a recursive query: each step the next value above the last
 * one found that a selected document holds, its document looked up by seq), so the cost follows
 * the distinct values, not the documents, and no join order is left to the planner's estimates:
 * without statistics it joined every document with every value. The long texts, rare, are read
 * whole. Undefined for another query.
 */
export function compileHeldValuesQuery(query: DocumentQuery, key: string): CompiledQuery | undefined {
  const partition = valuePartition(query);
  if (!partition || !selectsWholeList(query)) return undefined;
  const params = new Params();
  const selection = compileSelection(query, params, unordered);
  // Each entry's document is looked up by seq, then tested. Left to its estimates, the planner
  // joined the entries with the list walked by locale and mode (without statistics, the whole
  // list for every entry): OFFSET 0 plans the lookup on its own, where only the primary key serves.
  const selected = `(SELECT TRUE FROM (SELECT * FROM documents WHERE documents.seq = v.seq OFFSET 0) AS documents${selection.where})`;
  const scope = `${inPartition(partition, params)} AND v.key = ${params.add(key, 'text')}`;
  const [numbers, shortTexts, longTexts] = valueIndexes as [ValueIndex, ValueIndex, ValueIndex];
  const first = (column: string, index: ValueIndex, after = '') =>
    `SELECT v.${column} FROM document_values AS v WHERE ${scope} AND ${index.where}${after} AND ${selected} ORDER BY v.${column} LIMIT 1`;
  const walk = (name: string, column: string, index: ValueIndex) =>
    `${name} (${column}) AS ((${first(column, index)})
      UNION ALL SELECT (${first(column, index, ` AND v.${column} > ${name}.${column}`)}) FROM ${name} WHERE ${name}.${column} IS NOT NULL)`;
  return {
    sql: `WITH RECURSIVE ${walk('numbers', 'num', numbers)}, ${walk('texts', 'txt', shortTexts)}
      SELECT num, NULL::text COLLATE "C" AS txt FROM numbers WHERE num IS NOT NULL
      UNION ALL SELECT NULL::float8, txt FROM texts WHERE txt IS NOT NULL
      UNION ALL SELECT DISTINCT NULL::float8, v.txt FROM document_values AS v WHERE ${scope} AND ${longTexts.where} AND ${selected}
      ORDER BY num ASC NULLS LAST, txt ASC`,
    params: params.values,
  };
}

type ValueIndex = (typeof valueIndexes)[number];

/** The partition of the filter values a query reads: known when its type, locale and mode are. */
function valuePartition(query: DocumentQuery): ValuePartition | undefined {
  if (query.type === null || query.locale === undefined || query.mode === undefined) return undefined;
  return { type: query.type, locale: query.locale ?? '', mode: query.mode ?? '' };
}

/** What the order needs joined in: the positions of an id list, the search ranking. */
interface SelectionOptions {
  readonly orderByIds: boolean;
  readonly rank: boolean;
}

const unordered: SelectionOptions = { orderByIds: false, rank: false };

function selectFrom({ from, where }: Selection): string {
  return ` FROM ${from}${where}`;
}

function compileSelection(query: DocumentQuery, params: Params, { orderByIds, rank }: SelectionOptions): Selection {
  assertTypedLookup(query);
  const positions = orderByIds ? positionList(query) : undefined;
  const search = query.search === undefined ? undefined : compileSearch(query.search, params);
  let from = 'documents';
  if (positions !== undefined) {
    // Deduplicated (first place kept), so that the join yields each document once.
    const list = params.add([...new Set(positions.list)], 'text[]');
    from = `unnest(${list}) WITH ORDINALITY AS wanted (value, position)`
      + ` JOIN documents ON documents.${positions.column} = wanted.value`;
  }
  const filters = [...compileColumnFilters(query, positions?.column, params), ...compileIndexFilters(query, search, params)];
  return {
    from,
    where: filters.length > 0 ? ` WHERE ${filters.join(' AND ')}` : '',
    ranked: rank && search ? search : undefined,
    positioned: positions !== undefined,
  };
}

/** The list `order: 'ids'` follows: `ids`, or else `docIds`. */
function positionList(query: DocumentQuery): { column: 'id' | 'doc_id'; list: readonly string[] } | undefined {
  if (query.ids !== undefined) return { column: 'id', list: query.ids };
  if (query.docIds !== undefined) return { column: 'doc_id', list: query.docIds };
  return undefined;
}

/** Filters on the columns of documents; `joinedList` is already applied by the FROM clause. */
function compileColumnFilters(query: DocumentQuery, joinedList: 'id' | 'doc_id' | undefined, params: Params): string[] {
  const filters: string[] = [];
  if (query.type !== null) filters.push(`documents.type = ${params.add(query.type, 'text')}`);
  if (query.locale !== undefined) filters.push(`documents.locale = ${params.add(query.locale ?? '', 'text')}`);
  if (query.localeChain !== undefined) filters.push(compileLocaleChain(query, query.localeChain, params));
  if (query.shadowedIn !== undefined) filters.push(compileShadowed(query, query.shadowedIn, params));
  if (query.mode !== undefined) filters.push(`documents.mode = ${params.add(query.mode ?? '', 'text')}`);
  if (query.ids !== undefined && joinedList !== 'id') {
    filters.push(`documents.id = ANY (${params.add([...query.ids], 'text[]')})`);
  }
  if (query.docIds !== undefined && joinedList !== 'doc_id') {
    filters.push(`documents.doc_id = ANY (${params.add([...query.docIds], 'text[]')})`);
  }
  if (query.slug !== undefined) filters.push(slugIs('documents.slug', params.add(query.slug, 'text')));
  if (query.archived !== undefined) filters.push(`documents.archived = ${params.add(query.archived, 'boolean')}`);
  if (query.visibility !== undefined) {
    filters.push(`documents.visibility = ANY (${params.add([...query.visibility], 'text[]')})`);
  }
  if (query.scheduled !== undefined) {
    // The schedules_document index: one lookup per document the other filters kept.
    const statuses = query.scheduled === 'any' ? ['pending', 'failed'] : [query.scheduled];
    filters.push(`EXISTS (SELECT 1 FROM schedules s WHERE s.type = documents.type AND s.doc_id = documents.doc_id
      AND s.locale = documents.locale AND s.status = ANY (${params.add(statuses, 'text[]')}))`);
  }
  return filters;
}

/**
 * `localeChain`: a version in one of the chain's locales, when its document has none of the same
 * type and mode in an earlier one that the query's `archived` and `visibility` would select too
 * (found through the doc_id index: one lookup per candidate, never a query per result).
 */
function compileLocaleChain(query: DocumentQuery, chain: readonly string[], params: Params): string {
  const earlierIds = earlierVersionIds(query, chain);
  if (earlierIds) {
    const byId = `earlier.id IN (${earlierIds.map((suffix) => `documents.doc_id || ${params.add(suffix, 'text')}`).join(', ')})`;
    const same = [byId, 'earlier.type = documents.type', ...selectedAsQueried(query, params)];
    return `NOT EXISTS (SELECT 1 FROM documents AS earlier WHERE ${same.join(' AND ')})`;
  }
  const list = params.add([...chain], 'text[]');
  const same = ['earlier.doc_id = documents.doc_id', 'earlier.type = documents.type', 'earlier.mode = documents.mode', ...selectedAsQueried(query, params)];
  return `documents.locale = ANY (${list})
    AND NOT EXISTS (SELECT 1 FROM documents AS earlier WHERE ${same.join(' AND ')}
      AND earlier.locale = ANY (${list}) AND array_position(${list}, earlier.locale) < array_position(${list}, documents.locale))`;
}

/** That the `earlier` version is one the query's `archived` and `visibility` select. */
function selectedAsQueried(query: DocumentQuery, params: Params): string[] {
  return [
    ...(query.archived !== undefined ? [`earlier.archived = ${params.add(query.archived, 'boolean')}`] : []),
    ...(query.visibility !== undefined ? [`earlier.visibility = ANY (${params.add([...query.visibility], 'text[]')})`] : []),
  ];
}

/** `shadowedIn`: the versions whose document has one in these locales too, listed from those locales' versions. */
function compileShadowed(query: DocumentQuery, locales: readonly string[], params: Params): string {
  if (query.type === null || typeof query.locale !== 'string' || typeof query.mode !== 'string') {
    throw new Error('shadowedIn needs the type, locale and mode of the versions');
  }
  const suffix = params.add(`:${query.locale}:${query.mode}`, 'text');
  const same = [
    `earlier.type = ${params.add(query.type, 'text')}`,
    `earlier.locale = ANY (${params.add([...locales], 'text[]')})`,
    `earlier.mode = ${params.add(query.mode, 'text')}`,
    ...selectedAsQueried(query, params),
  ];
  return `documents.id IN (SELECT earlier.doc_id || ${suffix} FROM documents AS earlier WHERE ${same.join(' AND ')})`;
}

/** The conditions on index values and the search. */
function compileIndexFilters(query: DocumentQuery, search: CompiledSearch | null | undefined, params: Params): string[] {
  const filters: string[] = [];
  const partition = valuePartition(query);
  for (const condition of query.conditions ?? []) {
    const compiled = compileCondition(condition, partition, params);
    if (compiled !== null) filters.push(compiled);
  }
  // A search left without a word to look for matches nothing.
  if (search === null) filters.push('FALSE');
  else if (search !== undefined) filters.push(searchCondition(search));
  return filters;
}

interface OrderTerm {
  readonly expression: string;
  readonly keyword: string;
}

/**
 * The selection narrowed to what comes after the bound, in the query's order (the terms of
 * compileOrder, each compared with the bound's value of it). The bound's relevance is not
 * carried: it is the rank of the bound's document (`id`), the selection narrowed to it, in the
 * same statement, as the SQLite adapter reads it. A bound whose document is gone or no longer
 * matches has no rank, and nothing comes after it.
 */
function boundedSelection(query: DocumentQuery, selection: Selection, params: Params, bound: KeysetBound): Selection {
  const values = boundValuesOf(query, bound);
  const terms: BoundTerm[] = [];
  if (selection.ranked) {
    const rank = relevanceExpression(selection.ranked);
    const link = selection.where === '' ? ' WHERE' : ' AND';
    const ofBound = `(SELECT ${rank}${selectFrom(selection)}${link} documents.id = ${params.add(bound.id, 'text')})`;
    terms.push({ expression: () => rank, descending: true, nullable: false, value: () => ofBound });
  }
  const sort = query.sort ?? [];
  sort.forEach(({ field, direction }, index) => terms.push(...boundSortTerms(field, direction, values[index] ?? null, params)));
  if (!sort.some(({ field }) => field === '_id')) {
    const id = params.add(bound.id, 'text');
    terms.push({ expression: () => 'documents.id', descending: sort.at(-1)?.direction === -1, nullable: false, value: () => id });
  }
  const condition = afterBoundCondition(terms);
  return { ...selection, where: `${selection.where}${selection.where === '' ? ' WHERE ' : ' AND '}${condition}` };
}

/** sortTerms with the bound's value of each: a property's value split as its three terms sort it. */
function boundSortTerms(field: string, direction: SortDirection, value: IndexValue | boolean | null, params: Params): BoundTerm[] {
  const ordered = sortTerms(field, direction, params);
  const column = sortColumns.get(field);
  const term = (index: number, bound: unknown, type: SqlType, nullable: boolean): BoundTerm => {
    const placeholder = bound === null ? null : params.add(bound, type);
    return {
      expression: () => ordered[index]!.expression,
      descending: direction === -1,
      nullable,
      value: placeholder === null ? null : () => placeholder,
    };
  };
  if (column !== undefined) {
    // The column holds the beginning of the sortified title only.
    const text = field === 'titleSortified' && value !== null ? beginning(String(value), keyLength) : value;
    return [term(0, text, 'text', false)];
  }
  if (field === 'title') return [term(0, value === null ? null : String(value), 'text', true)];
  const kind = value === null ? 0 : typeof value === 'string' ? 2 : 1;
  const number = typeof value === 'boolean' ? Number(value) : typeof value === 'number' ? value : null;
  return [term(0, kind, 'bigint', false), term(1, number, 'float8', true), term(2, typeof value === 'string' ? value : null, 'text', true)];
}

function compileOrder(query: DocumentQuery, selection: Selection, params: Params): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (selection.positioned) terms.push({ expression: 'wanted.position', keyword: 'ASC' });
  if (selection.ranked) terms.push({ expression: relevanceExpression(selection.ranked), keyword: 'DESC' });
  const sort = query.sort ?? [];
  for (const { field, direction } of sort) terms.push(...sortTerms(field, direction, params));
  // `id` is unique, so ending on it makes the order total and pages stable.
  // It runs the way the last sort key does, so that one list index, read forwards or
  // backwards, yields the whole order and a deep page walks it instead of sorting.
  if (!sort.some(({ field }) => field === '_id')) {
    const last = sort.at(-1);
    terms.push({ expression: 'documents.id', keyword: last === undefined ? 'ASC' : sortKeyword(last.direction) });
  }
  return terms;
}

/**
 * The columns sort as they are (NOT NULL, in the list indexes' collation). Any other property
 * sorts as SQLite's json_extract values do: missing or null first, then numbers (booleans as 0
 * and 1) by value, then texts (arrays and objects as their JSON) bytewise.
 */
function sortTerms(field: string, direction: SortDirection, params: Params): OrderTerm[] {
  const keyword = sortKeyword(direction);
  const column = sortColumns.get(field);
  if (column !== undefined) return [{ expression: column, keyword }];
  // Missing values are NULL: first when ascending, as in SQLite.
  const nullsFirst = `${keyword} NULLS ${direction === 1 ? 'FIRST' : 'LAST'}`;
  if (field === 'title') return [{ expression: `(${readableData} ->> 'title') COLLATE "C"`, keyword: nullsFirst }];
  if (!propertyName.test(field)) throw new Error(`Cannot sort on "${field}"`);
  const value = `(${readableData} -> ${params.add(field, 'text')})`;
  return [
    {
      expression: `CASE json_typeof(${value}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1`
        + ` WHEN 'string' THEN 2 WHEN 'array' THEN 2 WHEN 'object' THEN 2 ELSE 0 END`,
      keyword,
    },
    {
      expression: `CASE json_typeof(${value}) WHEN 'number' THEN (${value} #>> '{}')::float8`
        + ` WHEN 'boolean' THEN CASE WHEN (${value} #>> '{}') = 'true' THEN 1 ELSE 0 END END`,
      keyword: nullsFirst,
    },
    {
      expression: `(CASE json_typeof(${value}) WHEN 'string' THEN ${value} #>> '{}'`
        + ` WHEN 'array' THEN ${value}::text WHEN 'object' THEN ${value}::text END) COLLATE "C"`,
      keyword: nullsFirst,
    },
  ];
}

function sortKeyword(direction: SortDirection): 'ASC' | 'DESC' {
  if (direction === 1) return 'ASC';
  if (direction === -1) return 'DESC';
  throw new Error(`Invalid sort direction: ${String(direction)}`);
}

function compilePage({ skip, limit }: DocumentQuery, params: Params): string {
  if (skip === undefined && limit === undefined) return '';
  assertCount('skip', skip);
  assertCount('limit', limit);
  // LIMIT NULL is no limit.
  return ` LIMIT ${params.add(limit ?? null, 'bigint')} OFFSET ${params.add(skip ?? 0, 'bigint')}`;
}

function assertCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new Error(`Invalid ${name}: ${value}`);
  }
}
