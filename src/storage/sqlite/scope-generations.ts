import { readDataVersion } from './data-version.js';
import type { StatementSource } from './statement-cache.js';

/**
 * The generation of each scope (migration 7: counted up by triggers on every write to a piece
 * type's documents or to the attachments), read through the read connection. The whole table (a
 * row per scope) is read again only once something was committed since it was last read.
 */
export class ScopeGenerations {
  readonly #statements: StatementSource;
  #known: { readonly version: number; readonly values: ReadonlyMap<string, number> } | undefined;

  constructor(statements: StatementSource) {
    this.#statements = statements;
  }

  /** The generations of `scopes`, in their order; a scope never written to is at 0. */
  of(scopes: readonly string[]): string {
    const { values } = this.#current();
    return scopes.map((scope) => values.get(scope) ?? 0).join(' ');
  }

  // A commit landing between the version and the table read leaves values newer than the
  // version: the next call sees the version moved and reads them again, so nothing older than
  // what was committed when a call began is ever returned.
  #current(): { readonly values: ReadonlyMap<string, number> } {
    const version = readDataVersion(this.#statements);
    if (this.#known?.version !== version) {
      const rows = this.#statements.statement('SELECT scope, value FROM generations').raw().all() as [string, number][];
      this.#known = { version, values: new Map(rows) };
    }
    return this.#known;
  }
}
