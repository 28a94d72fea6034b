import { DataVersionPerTurn } from './data-version.js';
import type { StatementSource } from './statement-cache.js';

/**
 * The generation of each key (migrations 7 and 15: counted up by triggers on every write to a
 * type's documents, and by the adapter on attachment writes), read through the read connection.
 * The whole table (a row per key) is read again only once something was committed since it was
 * last read.
 */
export class GenerationCounters {
  readonly #statements: StatementSource;
  readonly #dataVersion: DataVersionPerTurn;
  #known: { readonly version: number; readonly values: ReadonlyMap<string, number> } | undefined;

  constructor(statements: StatementSource) {
    this.#statements = statements;
    this.#dataVersion = new DataVersionPerTurn(statements);
  }

  /** This process committed a write: the next call reads the data version again, even within the turn. */
  committed(): void {
    this.#dataVersion.forget();
  }

  /** The generations of `keys`, in their order; a key never written to is at 0. */
  of(keys: readonly string[]): string {
    const { values } = this.#current();
    return keys.map((key) => values.get(key) ?? 0).join(' ');
  }

  // A commit landing between the version and the table read leaves values newer than the
  // version: a later read of the version sees it moved and reads them again. The version is
  // read once per turn of the event loop (DataVersionPerTurn says what a caller may miss).
  #current(): { readonly values: ReadonlyMap<string, number> } {
    const version = this.#dataVersion.read();
    if (this.#known?.version !== version) {
      const rows = this.#statements.statement('SELECT key, value FROM generations').raw().all() as [string, number][];
      this.#known = { version, values: new Map(rows) };
    }
    return this.#known;
  }
}

const countUpSql = 'INSERT INTO generations (key, value) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1';

/** Counts up the generation of `key` in the transaction of the write connection's `statements`. */
export function countUpGeneration(statements: StatementSource, key: string): void {
  statements.statement(countUpSql).run(key);
}
