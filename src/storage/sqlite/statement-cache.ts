import type BetterSqlite3 from 'better-sqlite3';

/** Where the stores get their prepared statements from. */
export interface StatementSource {
  statement(sql: string): BetterSqlite3.Statement;
}

// Query shapes are bounded (filter combinations × sort fields), but sorting on arbitrary
// properties could grow the cache without end; past this size the oldest entry goes.
const maxStatements = 256;

/** Prepares each SQL text once per connection and hands out the same statement afterwards. */
export class StatementCache implements StatementSource {
  readonly #connection: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(connection: BetterSqlite3.Database) {
    this.#connection = connection;
  }

  statement(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#connection.prepare(sql);
      if (this.#statements.size >= maxStatements) this.#evictOldest();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #evictOldest(): void {
    const oldest = this.#statements.keys().next();
    if (!oldest.done) this.#statements.delete(oldest.value);
  }
}
