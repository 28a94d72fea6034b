import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';

/** A pool or one of its clients: anything that runs a query. */
export interface Queryable {
  query<R extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>>;
}

/** Where the stores send their SQL: the pool (reads outside a transaction) or one transaction's client. */
export interface StatementSource {
  /**
   * Runs a statement of fixed text. It is prepared once per connection under a name and from
   * then on only bound and executed.
   */
  prepared<R extends QueryResultRow>(sql: string, params: readonly unknown[]): Promise<QueryResult<R>>;
  /**
   * Runs a compiled query. It is parsed and planned with its own values each time: the best plan
   * for an id list, a rare word or a deep page differs from that of a whole type.
   */
  query<R extends QueryResultRow>(sql: string, params: readonly unknown[]): Promise<QueryResult<R>>;
}

// One name per fixed statement text, the same on every connection. Only the stores' constant
// statements are prepared, so the set is small and bounded.
const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `cms_statement_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * A StatementSource on `target`; `check` runs before every statement (a transaction that ended
 * refuses). `named`: false behind a pooler in transaction mode (PgBouncer), where consecutive
 * statements of one client may reach different server connections, so a statement prepared
 * under a name on one is unknown (or already known) on the next: each is then parsed anew.
 */
export function statementSource(target: Queryable, check: () => void = () => undefined, named = true): StatementSource {
  return {
    prepared(sql, params) {
      check();
      return target.query({ ...(named && { name: statementName(sql) }), text: sql, values: params.map(storable) });
    },
    query(sql, params) {
      check();
      return target.query({ text: sql, values: params.map(storable) });
    },
  };
}

/**
 * A parameter as PostgreSQL can take it. Text cannot hold U+0000, so in every text parameter,
 * written or compared, it becomes U+FFFD: an id or a filter value holding it is stored and found
 * alike instead of failing. Documents and attachment records are bound as JSON, where it is
 * escaped, and come back as written.
 */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  if (Array.isArray(value)) return value.map(storable);
  return value;
}

/**
 * The values of one statement: `add` keeps a value and returns its placeholder with a cast, so
 * that SQL text only ever holds placeholders and the type each value is compared as.
 */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown, type: SqlType): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

export type SqlType = 'text' | 'text[]' | 'float8' | 'float8[]' | 'boolean' | 'bigint';
