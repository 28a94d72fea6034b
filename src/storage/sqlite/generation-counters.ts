import { DataVersionPerTurn, readDataVersion } from './data-version.js';
import type { StatementSource } from './statement-cache.js';
import { generationToken } from '../generation-token.js';
import type { GenerationRead, GenerationSources } from '../interface/adapter.js';

// One statement for any number of keys: the bound JSON array's items, in order, each looked up
// by the primary key (a missing one is null: never written, or a version that does not exist).
const keysSql = 'SELECT g.value FROM json_each(?) AS k LEFT JOIN generations AS g ON g.key = k.value ORDER BY k.key';
const versionsSql = 'SELECT g.value FROM json_each(?) AS k LEFT JOIN version_generations AS g ON g.id = k.value ORDER BY k.key';

/**
 * The generation of each key (migrations 7, 15 and 17: counted up by triggers on every write to
 * a type's documents, and by the adapter on attachment writes) and of each document version
 * (migration 19), read through the read connection. Only the keys asked for are read, each at
 * most once per turn of the event loop while nothing is committed by this process (the turn's
 * data version, `DataVersionPerTurn`, says what a caller may miss): the tables hold a row per
 * version, and a read must not grow with them. The position is `PRAGMA data_version`: it moves
 * with every commit on the file.
 */
export class GenerationCounters {
  readonly #statements: StatementSource;
  readonly #dataVersion: DataVersionPerTurn;
  /** The values read in this turn at its position, by key (`k:` a generation key, `v:` a version). */
  #turn: { readonly position: string; readonly values: Map<string, string> } | undefined;
  readonly #endTurn = () => {
    this.#turn = undefined;
  };

  constructor(statements: StatementSource) {
    this.#statements = statements;
    this.#dataVersion = new DataVersionPerTurn(statements);
  }

  /** This process committed a write: the next call reads the data version again, even within the turn. */
  committed(): void {
    this.#dataVersion.forget();
    this.#turn = undefined;
  }

  /** The generations of `keys`, in their order; a key never written to is at 0. */
  of(keys: readonly string[]): string {
    return this.read({ keys, versions: [] }).token!;
  }

  read(sources: GenerationSources, options: { readonly since?: string; readonly positionLast?: boolean } = {}): GenerationRead {
    if (options.positionLast) {
      // Straight from the file, then the position: equal to one read before the data, it says
      // that nothing was committed in between.
      const token = generationToken(this.#fresh(keysSql, sources.keys), this.#fresh(versionsSql, sources.versions));
      return { position: String(readDataVersion(this.#statements)), token };
    }
    const position = String(this.#dataVersion.read());
    if (options.since === position) return { position, token: null };
    if (this.#turn?.position !== position) {
      if (this.#turn === undefined) setImmediate(this.#endTurn);
      this.#turn = { position, values: new Map() };
    }
    const { values } = this.#turn;
    return { position, token: generationToken(this.#values(values, 'k:', keysSql, sources.keys), this.#values(values, 'v:', versionsSql, sources.versions)) };
  }

  #fresh(sql: string, names: readonly string[]): string[] {
    if (names.length === 0) return [];
    const rows = this.#statements.statement(sql).pluck().all(JSON.stringify(names)) as (number | null)[];
    return rows.map((value) => String(value ?? 0));
  }

  // Read after the turn's data version: what they say is at least as new as the position.
  #values(turn: Map<string, string>, prefix: string, sql: string, names: readonly string[]): string[] {
    if (names.length === 0) return [];
    const missing = names.filter((name) => !turn.has(prefix + name));
    if (missing.length > 0) {
      const values = this.#fresh(sql, missing);
      missing.forEach((name, i) => turn.set(prefix + name, values[i]!));
    }
    return names.map((name) => turn.get(prefix + name)!);
  }
}

const countUpSql = 'INSERT INTO generations (key, value) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1';

/** Counts up the generation of `key` in the transaction of the write connection's `statements`. */
export function countUpGeneration(statements: StatementSource, key: string): void {
  statements.statement(countUpSql).run(key);
}
