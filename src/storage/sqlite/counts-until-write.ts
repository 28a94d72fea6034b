import type { DocumentQuery } from '../storage-adapter.js';
import { VersionedCounts } from '../versioned-counts.js';
import { compileCountQuery } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';
import { readDataVersion } from './data-version.js';
import type { ReadThreads } from './read-threads.js';

/**
 * Counts of the read connection, kept until anything is written to the database.
 *
 * `PRAGMA data_version` on a connection changes whenever another connection (this process's
 * write connection, or any other process) has committed to the file since it last asked, and it
 * costs a read of the WAL index header, not of the data. Counts are kept per data version: the
 * first count after a write counts (a whole list from the counts the triggers keep), the
 * others until the next write are a map lookup. Nothing is kept for a count during which a write
 * landed, so a count is never served for a version older than the one it was read at.
 */
export class CountsUntilWrite {
  readonly #statements: StatementSource;
  readonly #kept = new VersionedCounts();

  constructor(statements: StatementSource) {
    this.#statements = statements;
  }

  /** `threads`: where the count runs when it is not kept; on the read connection without. */
  async count(query: DocumentQuery, threads?: ReadThreads): Promise<number> {
    const { sql, params } = compileCountQuery(query);
    const version = String(readDataVersion(this.#statements));
    const known = this.#kept.get(sql, params, version);
    if (known !== undefined) return known;
    const counted = (threads ? await threads.run(sql, params, 'value') : this.#statements.statement(sql).pluck().get(...params)) as number;
    if (String(readDataVersion(this.#statements)) === version) this.#kept.set(sql, params, version, counted);
    return counted;
  }
}
