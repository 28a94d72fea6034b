import type { StatementSource } from './statement-cache.js';

/**
 * `PRAGMA data_version` of the read connection. The read connection never writes, so the value
 * moves with every commit made on the file: by this process's write connection as by any other
 * process. It costs a read of the WAL index header, not of the data.
 */
export function readDataVersion(statements: StatementSource): number {
  return statements.statement('PRAGMA data_version').pluck().get() as number;
}

/**
 * `readDataVersion`, read once per turn of the event loop and shared by every caller of that
 * turn: the cached GETs ask for it on every request, and under load many requests are handled in
 * one turn (a poll phase hands over every socket that became readable together).
 *
 * What a caller may miss: a commit that another process makes after the turn's read, seen at the
 * next turn (the memo ends at the turn's check phase, before the next poll for sockets). A request
 * whose bytes were ready when the turn's poll began arrived before the read, so it sees every
 * commit made before it arrived, as the PostgreSQL store's shared read (`sharedRead`) ensures;
 * one read by a timer earlier in the turn can make that window one turn wide, never wider. This
 * process's own commits end the memo at once (`forget`), so a client that saw its write answered
 * reads it back, even within the turn.
 */
export class DataVersionPerTurn {
  readonly #statements: StatementSource;
  #memo: number | undefined;
  readonly #clear = () => {
    this.#memo = undefined;
  };

  constructor(statements: StatementSource) {
    this.#statements = statements;
  }

  read(): number {
    if (this.#memo === undefined) {
      this.#memo = readDataVersion(this.#statements);
      setImmediate(this.#clear);
    }
    return this.#memo;
  }

  /** Called after this process commits: the next read asks the file again. */
  forget(): void {
    this.#memo = undefined;
  }
}
