import type BetterSqlite3 from 'better-sqlite3';
import type { Mutex } from '../transaction-queue.js';

/** `PRAGMA optimize` on every table (0x10000), not only those this connection has read; analysis (0x02) only. */
const optimizeEveryTable = 'optimize = 0x10002';

// Rows ANALYZE reads of each index (SQLite advises 100 to 1,000). Unbounded, the first analysis
// of 100,000 articles held the event loop 3.9 s; bounded, 0.45 s, once (then every 25-fold growth).
const analysisLimit = 1000;

export interface StatisticsUpkeepOptions {
  /** Rows written (triggers' included) after which the statistics are looked at again. */
  readonly afterRows: number;
  /** How often they are looked at anyway, in ms. */
  readonly everyMs: number;
}

/**
 * Keeps the query planner's statistics (sqlite_stat1, sqlite_stat4) up to date while the process
 * runs. Without them, or with those of a store a small part of its size, the planner picks its
 * indexes by guess; SQLite advises `PRAGMA optimize` as a connection closes, but a server may run
 * for months after filling its store, and a store filled in one run had none until then. So it
 * also runs after every `afterRows` rows written (an import, a seeding, a busy day) and every
 * `everyMs`. When nothing is due it costs a look at each table's size (under a millisecond): it
 * analyzes only the tables without statistics or whose size changed some 25-fold since, each from
 * a bounded sample (`analysisLimit`). ANALYZE changes the schema cookie, so every connection to the
 * file (the read connection, the read threads, other processes) plans with the new statistics
 * from its next read.
 *
 * It runs on the write connection between transactions (through `runExclusive`), without waiting
 * for another process's write lock: when one holds it, this turn is skipped.
 */
export class StatisticsUpkeep {
  readonly #connection: BetterSqlite3.Database;
  readonly #runExclusive: Mutex;
  readonly #afterRows: number;
  readonly #timer: ReturnType<typeof setInterval>;
  #rowsAtLastLook: number;
  #stopped = false;

  constructor(connection: BetterSqlite3.Database, runExclusive: Mutex, options: StatisticsUpkeepOptions, totalRows: number) {
    this.#connection = connection;
    this.#runExclusive = runExclusive;
    this.#afterRows = options.afterRows;
    this.#rowsAtLastLook = totalRows;
    connection.pragma(`analysis_limit = ${analysisLimit}`);
    this.#timer = setInterval(() => this.#schedule(), options.everyMs);
    this.#timer.unref();
  }

  /** After a commit: `totalRows`, the rows the connection has written since it opened. */
  committed(totalRows: number): void {
    if (totalRows - this.#rowsAtLastLook < this.#afterRows) return;
    this.#rowsAtLastLook = totalRows;
    this.#schedule();
  }

  /** Refreshes what is due now; the caller holds the write connection between transactions. */
  refresh(): void {
    if (!this.#connection.open || this.#connection.inTransaction) return;
    // Its turn is skipped rather than waited for: the wait the connection was opened with comes back after.
    const busyTimeout = Number(this.#connection.pragma('busy_timeout', { simple: true }));
    this.#connection.pragma('busy_timeout = 0');
    try {
      this.#connection.pragma(optimizeEveryTable);
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
    } finally {
      this.#connection.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  #schedule(): void {
    // After the transaction that is committing, before the next group: reads go on meanwhile.
    // Statistics only guide the planner: a failed refresh (a full disk) leaves the ones there
    // were, and the next turn tries again.
    void this.#runExclusive(async () => {
      if (!this.#stopped) this.refresh();
    }).catch(() => undefined);
  }
}
