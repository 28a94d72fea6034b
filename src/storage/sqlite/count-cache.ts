import type { DocumentQuery } from '../storage-adapter.js';
import { compileCountQuery } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';
import { readDataVersion } from './data-version.js';
import type { ReadThreads } from './read-threads.js';

// Each entry is one filter shape with its values (a few hundred bytes); past this many the
// oldest goes, so callers varying a filter value cannot grow the cache without end.
const maxCounts = 1000;

/**
 * Counts of the read connection, kept until anything is written to the database.
 *
 * `PRAGMA data_version` on a connection changes whenever another connection (this process's
 * write connection, or any other process) has committed to the file since it last asked, and it
 * costs a read of the WAL index header, not of the data. Counts are kept per data version: the
 * first count after a write scans, the others until the next write are a map lookup. Nothing is
 * kept for a count during which a write landed, so a count is never served for a version older
 * than the one it was read at.
 */
export class CountCache {
  readonly #statements: StatementSource;
  readonly #counts = new Map<string, number>();
  #version: number | undefined;

  constructor(statements: StatementSource) {
    this.#statements = statements;
  }

  /** `threads`: where the count runs when it is not kept; on the read connection without. */
  async count(query: DocumentQuery, threads?: ReadThreads): Promise<number> {
    const { sql, params } = compileCountQuery(query);
    const version = this.#dataVersion();
    if (version !== this.#version) {
      this.#counts.clear();
      this.#version = version;
    }
    const key = `${sql}\n${cacheKeyOf(params)}`;
    const known = this.#counts.get(key);
    if (known !== undefined) return known;
    const counted = (threads ? await threads.run(sql, params, 'value') : this.#statements.statement(sql).pluck().get(...params)) as number;
    if (this.#dataVersion() !== version) return counted;
    if (this.#counts.size >= maxCounts) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(key, counted);
    return counted;
  }

  #dataVersion(): number {
    return readDataVersion(this.#statements);
  }
}

/** The parameters as a key: numbers are tagged, since JSON writes Infinity (an open range bound) as null. */
function cacheKeyOf(params: readonly unknown[]): string {
  return JSON.stringify(params.map((param) => (typeof param === 'number' ? { n: String(param) } : param)));
}
