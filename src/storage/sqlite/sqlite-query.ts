import { assertTypedLookup, type DocumentQuery, type KeysetBound, type SortDirection } from '../storage-adapter.js';
import { afterBoundCondition, boundValuesOf, type BoundTerm } from '../keyset-bound.js';
import { compileCondition, partitionParams, valuePartitionSql, type ValuePartition } from './sqlite-conditions.js';
import { compileSearch, matchedAlias, unionOfRowids, type CompiledSearch } from './sqlite-search.js';
import type { CompiledQuery } from './compiled-query.js';
import { selectsWholeList } from '../held-values.js';
import { earlierVersionIds } from '../locale-chain-reads.js';

const sortExpressions: ReadonlyMap<string, string> = new Map([
  ['updatedAt', 'documents.updated_at'],
  ['createdAt', 'documents.created_at'],
  ['titleSortified', 'documents.title_sortified'],
  ['slug', 'documents.slug'],
  ['_id', 'documents.id'],
  ['title', "json_extract(documents.data, '$.title')"],
]);

// Only plain identifiers may be spliced into a JSON path; the service validates sort fields first.
const propertyName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The documents a query selects: the FROM clause (with its joins) and the WHERE clause. */
interface Selection {
  readonly from: CompiledQuery;
  readonly where: CompiledQuery;
  /** The search joined in to rank by; only for `order: 'relevance'` with a word to search for. */
  readonly ranked?: CompiledSearch;
  /** Whether `wanted.key`, the position in the id list, is there to order by. */
  readonly positioned: boolean;
}

/**
 * Compiles a DocumentQuery into one `SELECT data` statement, stably ordered and paged. The page
 * is chosen first from the sort keys alone, which the list indexes hold, and only its rows'
 * data are read: skipping to page 250 then walks index entries, not 2,500 documents.
 */
export function compileFindQuery(query: DocumentQuery, options: FindOptions = {}): CompiledQuery {
  let selection = compileSelection(query, {
    orderByIds: query.order === 'ids',
    rank: query.order === 'relevance',
    probe: options.probeConditions === true,
  });
  const page = compilePage(query);
  const order = compileOrder(query, selection);
  if (query.after !== undefined) selection = boundedSelection(query, selection, order, query.after);
  const orderBy = ` ORDER BY ${order.map((term) => `${term.expression} ${term.keyword}`).join(', ')}`;
  const orderParams = order.flatMap((term) => term.params ?? []);
  // An id list bounds the rows read to its length, so the page needs no subquery of its own:
  // reading the few rows directly is three times cheaper than the co-routine and join (a
  // get-one, a relationship's documents).
  if (byIds(query)) {
    return {
      sql: `SELECT documents.data${selectFrom(selection)}${orderBy}${page.sql}`,
      params: [...selectionParams(selection), ...orderParams, ...page.params],
    };
  }
  const keys = order.map((term, n) => `${term.expression} AS k${n}`).join(', ');
  const inner = `SELECT documents.seq AS seq, ${keys}${selectFrom(selection)}${orderBy}${page.sql}`;
  // Each order expression appears twice: among the selected keys and in ORDER BY.
  return {
    sql: `SELECT documents.data FROM (${inner}) AS page JOIN documents ON documents.seq = page.seq`
      + ` ORDER BY ${order.map((term, n) => `page.k${n} ${term.keyword}`).join(', ')}`,
    params: [...orderParams, ...selectionParams(selection), ...orderParams, ...page.params],
  };
}

/** Compiles the filters of a DocumentQuery into one `SELECT COUNT(*)`; sort and paging are ignored. */
export function compileCountQuery(query: DocumentQuery): CompiledQuery {
  if (selectsWholePartitions(query)) return compilePartitionCount(query);
  // A count reads every document selected, in no order: a search's matches, joined as a ranked
  // find joins them, cost what they hold; tested one by one against the list partition's index walk,
  // they cost the whole partition (2.3 ms for 100 matches among 10,000 articles, 0.2 ms joined).
  const selection = compileSelection(query, query.search ? { orderByIds: false, rank: true } : unordered);
  return { sql: `SELECT COUNT(*)${selectFrom(selection)}`, params: selectionParams(selection) };
}

/**
 * Whether reading the query's page costs in proportion to all it selects, not to the page: a
 * full-text search (every match is ranked or tested), or a sort that no list index holds (a
 * property of the stored JSON, read from every selected document). Such reads run off the event
 * loop (ReadThreads).
 */
export function costGrowsWithSelection(query: DocumentQuery): boolean {
  if (query.search !== undefined) return true;
  return (query.sort ?? []).some(({ field }) => sortExpression(field).startsWith('json_extract('));
}

/** Whether a query selects by list partition columns only: no id list, slug, condition or search. */
function selectsWholePartitions(query: DocumentQuery): boolean {
  return query.ids === undefined && query.docIds === undefined && query.slug === undefined && query.localeChain === undefined
    && query.shadowedIn === undefined && (query.conditions === undefined || query.conditions.length === 0) && query.search === undefined
    && query.scheduled === undefined;
}

/** The count of whole lists, from the counts the triggers of migration 8 keep. */
function compilePartitionCount(query: DocumentQuery): CompiledQuery {
  const filters: string[] = [];
  const params: unknown[] = [];
  const where = (sql: string, param: unknown): void => {
    filters.push(sql);
    params.push(param);
  };
  if (query.type !== null) where('type = ?', query.type);
  if (query.locale !== undefined) where('locale = ?', query.locale ?? '');
  if (query.mode !== undefined) where('mode = ?', query.mode ?? '');
  if (query.archived !== undefined) where('archived = ?', query.archived ? 1 : 0);
  if (query.visibility !== undefined) where('visibility IN (SELECT value FROM json_each(?))', jsonList(query.visibility));
  const clause = filters.length > 0 ? ` WHERE ${filters.join(' AND ')}` : '';
  return { sql: `SELECT COALESCE(SUM(count), 0) FROM document_counts${clause}`, params };
}

/**
 * Distinct values of `key` with their document counts among what the query selects, by value.
 * Within a partition every entry of the key is read and tested against the selection; with
 * `bySelected`, each selected document's own entries are looked up instead, cheaper when the
 * query selects a small part of the partition (an archived view, a narrow filter).
 */
export function compileDistinctValuesQuery(query: DocumentQuery, key: string, { bySelected = false } = {}): CompiledQuery {
  return distinctValuesOf(query, { sql: 'key = ?', param: key, grouped: '' }, bySelected);
}

/**
 * compileDistinctValuesQuery for several keys in one statement, its rows `key, value, count` by
 * key then value: what the query selects is found once for all the keys (a filtered list's
 * choices: at 100,000 articles, 52 ms for four keys where a statement per key took 56 ms each).
 */
export function compileDistinctValuesOfKeysQuery(query: DocumentQuery, keys: readonly string[], { bySelected = false } = {}): CompiledQuery {
  return distinctValuesOf(query, { sql: 'key IN (SELECT value FROM json_each(?))', param: jsonList(keys), grouped: 'key, ' }, bySelected);
}

function distinctValuesOf(query: DocumentQuery, keys: { sql: string; param: string; grouped: string }, bySelected: boolean): CompiledQuery {
  const selection = compileSelection(query, unordered);
  const partition = bySelected ? undefined : valuePartition(query);
  // Without a partition, the (seq, key) index finds each selected document's values.
  const where = partition ? `${valuePartitionSql} AND ${keys.sql}` : keys.sql;
  return {
    sql: `SELECT ${keys.grouped}value, COUNT(*) AS count FROM document_values
      WHERE ${where} AND seq IN (SELECT documents.seq${selectFrom(selection)})
      GROUP BY ${keys.grouped}value ORDER BY ${keys.grouped}value`,
    params: [...(partition ? partitionParams(partition) : []), keys.param, ...selectionParams(selection)],
  };
}

/**
 * The distinct values of `key` in a whole list (selectsWholeList), in compileDistinctValuesQuery's
 * order, without counts (a list's `choices`): walked along the filter index one value at a time,
 * each step the next value above the last one found that a selected document holds (its
 * document looked up by seq), so the cost follows the distinct values, not the documents: the
 * values of a list of 100,000 take as long as those of 1,000. Undefined for another query.
 */
export function compileHeldValuesQuery(query: DocumentQuery, key: string): CompiledQuery | undefined {
  const partition = valuePartition(query);
  if (!partition || !selectsWholeList(query)) return undefined;
  const selection = compileSelection(query, unordered);
  const link = selection.where.sql === '' ? ' WHERE' : ' AND';
  const selected = `EXISTS (SELECT 1${selectFrom(selection)}${link} documents.seq = v.seq)`;
  const next = `SELECT v.value FROM document_values AS v
    WHERE v.type = ? AND v.locale = ? AND v.mode = ? AND v.key = ? AND v.value > held.value AND ${selected}
    ORDER BY v.value LIMIT 1`;
  // Index values are finite: -Infinity starts the walk below all of them, and is left out.
  return {
    sql: `WITH RECURSIVE held (value) AS (SELECT ? UNION ALL SELECT (${next}) FROM held WHERE held.value IS NOT NULL)
      SELECT value FROM held WHERE value > ? ORDER BY value`,
    params: [-Infinity, ...partitionParams(partition), key, ...selectionParams(selection), -Infinity],
  };
}

/** The partition of the filter values a query reads: known when its type, locale and mode are. */
function valuePartition(query: DocumentQuery): ValuePartition | undefined {
  if (query.type === null || query.locale === undefined || query.mode === undefined) return undefined;
  return { type: query.type, locale: query.locale ?? '', mode: query.mode ?? '' };
}

/**
 * A JSON array parameter for `IN (SELECT value FROM json_each(?))`, which keeps the statement
 * text (and so its cached statement) the same whatever the length of the list.
 */
export function jsonList(values: readonly (string | number)[]): string {
  return JSON.stringify(values);
}

export interface FindOptions {
  /**
   * Test each document the list index walk reaches against the filter values of that document,
   * instead of gathering every document each condition selects first. Cheaper when the page is
   * reached after few index entries (broad filters, early pages), dearer when the filters are
   * narrow: the walk then reads most of the list. See `listReadPlan`.
   */
  readonly probeConditions?: boolean;
}

/** What the order needs joined in: the positions of an id list, the search ranking. */
interface SelectionOptions {
  readonly orderByIds: boolean;
  readonly rank: boolean;
  /** Conditions as per-document tests (FindOptions.probeConditions). */
  readonly probe?: boolean;
}

const unordered: SelectionOptions = { orderByIds: false, rank: false };

function selectFrom({ from, where }: Selection): string {
  return ` FROM ${from.sql}${where.sql}`;
}

function selectionParams({ from, where }: Selection): unknown[] {
  return [...from.params, ...where.params];
}

function compileSelection(query: DocumentQuery, { orderByIds, rank, probe = false }: SelectionOptions): Selection {
  assertTypedLookup(query);
  const positions = orderByIds ? positionList(query) : undefined;
  const search = query.search === undefined ? undefined : compileSearch(query.search);
  const ranked = rank && search ? search : undefined;
  const from: string[] = [];
  const fromParams: unknown[] = [];
  if (positions !== undefined) {
    // Deduplicated, so that the join yields each document once.
    from.push(`json_each(?) AS wanted JOIN documents ON documents.${positions.column} = wanted.value`);
    fromParams.push(jsonList([...new Set(positions.list)]));
  } else if (ranked?.rows !== undefined) {
    // Left to itself, the planner walks the whole list partition and looks each document up
    // in the matches; CROSS JOIN makes it read the matches first, then their documents by seq.
    from.push(`(${ranked.rows}) AS ${matchedAlias} CROSS JOIN documents ON documents.seq = ${matchedAlias}.rowid`);
    fromParams.push(...ranked.matches.map(({ match }) => match));
  } else {
    from.push('documents');
  }
  const matchesFirst = positions === undefined && ranked?.rows !== undefined;
  if (ranked && !matchesFirst) {
    const joined = joinMatches(ranked);
    from.push(joined.sql);
    fromParams.push(...joined.params);
  }
  const filters = [
    ...compileColumnFilters(query, positions?.column),
    ...compileIndexFilters(query, search, { joined: ranked !== undefined, probe }),
  ];
  return {
    from: { sql: from.join(' '), params: fromParams },
    where: {
      sql: filters.length > 0 ? ` WHERE ${filters.map((filter) => filter.sql).join(' AND ')}` : '',
      params: filters.flatMap((filter) => filter.params),
    },
    ranked,
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
function compileColumnFilters(query: DocumentQuery, joinedList: 'id' | 'doc_id' | undefined): CompiledQuery[] {
  const filters: CompiledQuery[] = [];
  const where = (sql: string, param: unknown): void => {
    filters.push({ sql, params: [param] });
  };
  // An id list is far more selective than type, locale and mode, but without statistics the
  // planner prefers the index matching more columns and scans a whole type. A unary `+` keeps a
  // column out of index selection, so lookups by id go through the id and doc_id indexes.
  const column = (name: string): string => (byIds(query) ? `+documents.${name}` : `documents.${name}`);
  if (query.type !== null) where(`${column('type')} = ?`, query.type);
  if (query.locale !== undefined) where(`${column('locale')} = ?`, query.locale ?? '');
  if (query.localeChain !== undefined) filters.push(compileLocaleChain(query, query.localeChain));
  if (query.shadowedIn !== undefined) filters.push(compileShadowed(query, query.shadowedIn));
  if (query.mode !== undefined) where(`${column('mode')} = ?`, query.mode ?? '');
  if (query.ids !== undefined && joinedList !== 'id') {
    where('documents.id IN (SELECT value FROM json_each(?))', jsonList(query.ids));
  }
  if (query.docIds !== undefined && joinedList !== 'doc_id') {
    where('documents.doc_id IN (SELECT value FROM json_each(?))', jsonList(query.docIds));
  }
  if (query.slug !== undefined) where('documents.slug = ?', query.slug);
  if (query.archived !== undefined) where(`${column('archived')} = ?`, query.archived ? 1 : 0);
  if (query.visibility !== undefined) {
    where('documents.visibility IN (SELECT value FROM json_each(?))', jsonList(query.visibility));
  }
  if (query.scheduled !== undefined) {
    // The schedules_document index: one lookup per document the other filters kept.
    const statuses = query.scheduled === 'any' ? ['pending', 'failed'] : [query.scheduled];
    where(`EXISTS (SELECT 1 FROM schedules s WHERE s.type = documents.type AND s.doc_id = documents.doc_id
      AND s.locale = documents.locale AND s.status IN (SELECT value FROM json_each(?)))`, jsonList(statuses));
  }
  return filters;
}

/**
 * `localeChain`: a version in one of the chain's locales, when its document has none of the same
 * type and mode in an earlier one that the query's `archived` and `visibility` would select too
 * (found through the doc_id index: one lookup per candidate, never a query per result).
 */
function compileLocaleChain(query: DocumentQuery, chain: readonly string[]): CompiledQuery {
  const earlierIds = earlierVersionIds(query, chain);
  const list = jsonList(chain);
  const same = earlierIds
    ? [`earlier.id IN (${earlierIds.map(() => 'documents.doc_id || ?').join(', ')})`, 'earlier.type = documents.type']
    : ['earlier.doc_id = documents.doc_id', 'earlier.type = documents.type', 'earlier.mode = documents.mode'];
  const params: unknown[] = earlierIds ? [...earlierIds] : [list];
  selectedAsQueried(query, same, params);
  if (earlierIds) return { sql: `NOT EXISTS (SELECT 1 FROM documents AS earlier WHERE ${same.join(' AND ')})`, params };
  params.push(list, list);
  const earlierLocales = 'SELECT value FROM json_each(?) WHERE key < (SELECT key FROM json_each(?) WHERE value = documents.locale)';
  return {
    sql: `documents.locale IN (SELECT value FROM json_each(?))
      AND NOT EXISTS (SELECT 1 FROM documents AS earlier WHERE ${same.join(' AND ')} AND earlier.locale IN (${earlierLocales}))`,
    params,
  };
}

/** Adds to `same` that the `earlier` version is one the query's `archived` and `visibility` select. */
function selectedAsQueried(query: DocumentQuery, same: string[], params: unknown[]): void {
  if (query.archived !== undefined) {
    same.push('earlier.archived = ?');
    params.push(query.archived ? 1 : 0);
  }
  if (query.visibility !== undefined) {
    same.push('earlier.visibility IN (SELECT value FROM json_each(?))');
    params.push(jsonList(query.visibility));
  }
}

/**
 * `shadowedIn`: the versions whose document has one in these locales too, listed from those
 * locales' versions (their list index) and each version looked up by its id: the cost of what
 * the earlier locales hold, not of the versions tested.
 */
function compileShadowed(query: DocumentQuery, locales: readonly string[]): CompiledQuery {
  if (query.type === null || typeof query.locale !== 'string' || typeof query.mode !== 'string') {
    throw new Error('shadowedIn needs the type, locale and mode of the versions');
  }
  const same = ['earlier.type = ?', 'earlier.locale IN (SELECT value FROM json_each(?))', 'earlier.mode = ?'];
  const params: unknown[] = [`:${query.locale}:${query.mode}`, query.type, jsonList(locales), query.mode];
  selectedAsQueried(query, same, params);
  return { sql: `documents.id IN (SELECT earlier.doc_id || ? FROM documents AS earlier WHERE ${same.join(' AND ')})`, params };
}

/**
 * The conditions on index values and the search; `joined`: the search table is in the FROM
 * clause; `probe`: conditions test each document's own values (FindOptions.probeConditions).
 */
function compileIndexFilters(
  query: DocumentQuery,
  search: CompiledSearch | null | undefined,
  { joined, probe }: { joined: boolean; probe: boolean },
): CompiledQuery[] {
  // Left to itself, the planner fetches every document a condition or search selects by seq,
  // then sorts them all: 35 ms for a page of a category holding 14,000 of 50,000 documents, and
  // seconds for a common word when those rows are not cached. With `+` it walks the list index
  // in sort order instead, testing each seq against the set the condition selects (gathered
  // once) until the page is full: 3 ms, and 0.3 ms either way for a narrow condition. That
  // needs the list index, so only when the type is known.
  const seq = query.type !== null && !byIds(query) ? '+documents.seq' : 'documents.seq';
  const filters: CompiledQuery[] = [];
  const partition = probe ? undefined : valuePartition(query);
  for (const condition of query.conditions ?? []) {
    const compiled = compileCondition(condition, seq, partition);
    if (compiled !== null) filters.push(compiled);
  }
  // A search left without a word to look for matches nothing.
  if (search === null) filters.push({ sql: '0', params: [] });
  else if (search !== undefined && !joined) {
    filters.push({ sql: `${seq} IN (${unionOfRowids(search.matches)})`, params: search.matches.map(({ match }) => match) });
  } else if (search !== undefined && search.rows === undefined) {
    filters.push({ sql: `${search.matches[0].table} MATCH ?`, params: [search.matches[0].match] });
  }
  return filters;
}

/**
 * The search's matches joined in, for ranking and counting. One table is joined itself (bm25()
 * can only be read in a query on the search table, whose MATCH is then a filter); the matches of
 * two tables are joined as one set of rows.
 */
function joinMatches(search: CompiledSearch): CompiledQuery {
  const [only] = search.matches;
  if (search.rows === undefined) return { sql: `JOIN ${only.table} ON ${only.table}.rowid = documents.seq`, params: [] };
  return {
    sql: `JOIN (${search.rows}) AS ${matchedAlias} ON ${matchedAlias}.rowid = documents.seq`,
    params: search.matches.map(({ match }) => match),
  };
}

function byIds(query: DocumentQuery): boolean {
  return query.ids !== undefined || query.docIds !== undefined || query.shadowedIn !== undefined;
}

interface OrderTerm {
  readonly expression: string;
  readonly params?: readonly unknown[];
  readonly keyword: 'ASC' | 'DESC';
  /** The sort entry the term orders by; undefined for the id list's position and the relevance. */
  readonly field?: string;
}

function compileOrder(query: DocumentQuery, selection: Selection): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (selection.positioned) terms.push({ expression: 'wanted.key', keyword: 'ASC' });
  if (selection.ranked) {
    const { sql, params } = selection.ranked.relevance;
    terms.push({ expression: sql, params, keyword: 'ASC' });
  }
  const sort = query.sort ?? [];
  for (const { field, direction } of sort) terms.push({ expression: sortExpression(field), keyword: sortKeyword(direction), field });
  // `id` is unique, so ending on it makes the order total and pages stable.
  if (!sort.some(({ field }) => field === '_id')) terms.push({ expression: 'documents.id', keyword: tieBreakKeyword(sort), field: '_id' });
  return terms;
}

/**
 * The id tie-break runs the way the last sort key does: the list indexes hold (…, key, id), so
 * `updated_at DESC, id DESC` walks one backwards, where `updated_at DESC, id ASC` made SQLite
 * sort every skipped row of a deep page in a temporary b-tree.
 */
function tieBreakKeyword(sort: NonNullable<DocumentQuery['sort']>): OrderTerm['keyword'] {
  const last = sort.at(-1);
  return last === undefined ? 'ASC' : sortKeyword(last.direction);
}

/**
 * The selection narrowed to what comes after the bound, in the query's order. The bound's
 * relevance is not carried: it is the rank of the bound's document (`id`) in the same statement,
 * the whole selection narrowed to it, because bm25 weighs a match against the whole index, which
 * moves with every write: a rank read for an earlier page would not compare with this
 * statement's. A bound whose document is gone or no longer matches has no rank, and nothing
 * comes after it.
 */
function boundedSelection(query: DocumentQuery, selection: Selection, order: readonly OrderTerm[], bound: KeysetBound): Selection {
  const boundValues = boundValuesOf(query, bound);
  const params: unknown[] = [];
  // Each piece of SQL binds its values as it is written: `?` are positional.
  const writer = (sql: string, values: readonly unknown[]) => () => {
    params.push(...values);
    return sql;
  };
  let next = 0;
  const terms = order.map((term): BoundTerm => {
    const expression = writer(term.expression, term.params ?? []);
    if (term.field === undefined) {
      const rank = `(SELECT ${term.expression}${selectFrom(selection)}${selection.where.sql === '' ? ' WHERE' : ' AND'} documents.id = ?)`;
      return { expression, descending: false, nullable: false, value: writer(rank, [...(term.params ?? []), ...selectionParams(selection), bound.id]) };
    }
    // The sort's entries take the bound's values in turn; the tie-break that follows them, its id.
    const value = next < boundValues.length ? boundValues[next++] : bound.id;
    return {
      expression,
      descending: term.keyword === 'DESC',
      nullable: !sortExpressions.has(term.field) || term.field === 'title',
      // json_extract reads true and false as 1 and 0.
      value: value === null || value === undefined ? null : writer('?', [typeof value === 'boolean' ? Number(value) : value]),
    };
  });
  const condition = afterBoundCondition(terms);
  const link = selection.where.sql === '' ? ' WHERE ' : ' AND ';
  return { ...selection, where: { sql: `${selection.where.sql}${link}${condition}`, params: [...selection.where.params, ...params] } };
}

function sortExpression(field: string): string {
  const known = sortExpressions.get(field);
  if (known !== undefined) return known;
  if (!propertyName.test(field)) throw new Error(`Cannot sort on "${field}"`);
  return `json_extract(documents.data, '$.${field}')`;
}

function sortKeyword(direction: SortDirection): OrderTerm['keyword'] {
  if (direction === 1) return 'ASC';
  if (direction === -1) return 'DESC';
  throw new Error(`Invalid sort direction: ${String(direction)}`);
}

function compilePage({ skip, limit }: DocumentQuery): CompiledQuery {
  if (skip === undefined && limit === undefined) return { sql: '', params: [] };
  assertCount('skip', skip);
  assertCount('limit', limit);
  // SQLite reads a negative LIMIT as "no limit".
  return { sql: ' LIMIT ? OFFSET ?', params: [limit ?? -1, skip ?? 0] };
}

function assertCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new Error(`Invalid ${name}: ${value}`);
  }
}
