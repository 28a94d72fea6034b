import type { DocumentQuery, SortDirection } from '../storage-adapter.js';

/** One parameterized statement: `sql` never contains a value, only placeholders. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

const sortExpressions: ReadonlyMap<string, string> = new Map([
  ['updatedAt', 'updated_at'],
  ['createdAt', 'created_at'],
  ['titleSortified', 'title_sortified'],
  ['slug', 'slug'],
  ['_id', 'id'],
  ['title', "json_extract(data, '$.title')"],
]);

// Only plain identifiers may be spliced into a JSON path; the service validates sort fields first.
const propertyName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Compiles a DocumentQuery into one `SELECT data` statement, stably ordered and paged. */
export function compileFindQuery(query: DocumentQuery): CompiledQuery {
  const where = compileWhere(query);
  const page = compilePage(query);
  return {
    sql: `SELECT data FROM documents${where.sql} ORDER BY ${compileOrderBy(query)}${page.sql}`,
    params: [...where.params, ...page.params],
  };
}

/** Compiles the filters of a DocumentQuery into one `SELECT COUNT(*)`; sort and paging are ignored. */
export function compileCountQuery(query: DocumentQuery): CompiledQuery {
  const where = compileWhere(query);
  return { sql: `SELECT COUNT(*) FROM documents${where.sql}`, params: where.params };
}

/**
 * A JSON array parameter for `IN (SELECT value FROM json_each(?))`, which keeps the statement
 * text (and so its cached statement) the same whatever the length of the list.
 */
export function jsonList(values: readonly string[]): string {
  return JSON.stringify(values);
}

function compileWhere(query: DocumentQuery): CompiledQuery {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const where = (condition: string, value: unknown): void => {
    conditions.push(condition);
    params.push(value);
  };
  // An id list is far more selective than type, locale and mode, but without statistics the
  // planner prefers the index matching more columns and scans a whole type. A unary `+` keeps a
  // column out of index selection, so lookups by id go through the id and doc_id indexes.
  const byIds = query.ids !== undefined || query.docIds !== undefined;
  const column = (name: string): string => (byIds ? `+${name}` : name);
  if (query.type !== undefined) where(`${column('type')} = ?`, query.type);
  if (query.locale !== undefined) where(`${column('locale')} = ?`, query.locale ?? '');
  if (query.mode !== undefined) where(`${column('mode')} = ?`, query.mode ?? '');
  if (query.ids !== undefined) where('id IN (SELECT value FROM json_each(?))', jsonList(query.ids));
  if (query.docIds !== undefined) where('doc_id IN (SELECT value FROM json_each(?))', jsonList(query.docIds));
  if (query.slug !== undefined) where('slug = ?', query.slug);
  if (query.archived !== undefined) where(`${column('archived')} = ?`, query.archived ? 1 : 0);
  if (query.visibility !== undefined) {
    where('visibility IN (SELECT value FROM json_each(?))', jsonList(query.visibility));
  }
  return { sql: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '', params };
}

function compileOrderBy(query: DocumentQuery): string {
  const sort = query.sort ?? [];
  const terms = sort.map(({ field, direction }) => `${sortExpression(field)} ${sortKeyword(direction)}`);
  // `id` is unique, so ending on it makes the order total and pages stable.
  if (!sort.some(({ field }) => field === '_id')) terms.push('id ASC');
  return terms.join(', ');
}

function sortExpression(field: string): string {
  const known = sortExpressions.get(field);
  if (known !== undefined) return known;
  if (!propertyName.test(field)) throw new Error(`Cannot sort on "${field}"`);
  return `json_extract(data, '$.${field}')`;
}

function sortKeyword(direction: SortDirection): string {
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
