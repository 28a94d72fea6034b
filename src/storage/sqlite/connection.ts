import type BetterSqlite3 from 'better-sqlite3';
import Database from './driver.js';

export interface ConnectionOptions {
  readonly filename: string;
  /** Called with every statement the connection runs, parameters filled in (tests count them). */
  readonly onStatement?: (sql: string) => void;
  /** False: pages are read through the page cache, one read call each, never memory-mapped (tests count them). */
  readonly memoryMapped?: boolean;
  /** The connection only reads (`PRAGMA query_only`). */
  readonly readOnly?: boolean;
  /** Milliseconds a statement waits for another connection's lock (another process's write) before failing; default `defaultBusyTimeout`. */
  readonly busyTimeout?: number;
}

export const defaultBusyTimeout = 5000;

/** A connection to the store's file with the settings every connection of the adapter shares. */
export function openConnection(options: ConnectionOptions): BetterSqlite3.Database {
  const { onStatement } = options;
  const connection = new Database(options.filename, onStatement ? { verbose: (sql?: unknown) => onStatement(String(sql)) } : {});
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma(`busy_timeout = ${Math.trunc(options.busyTimeout ?? defaultBusyTimeout)}`);
    // The default page cache is 2 MiB: a list over a few thousand documents would reread most of
    // its pages from the OS on every request. Memory-mapped reads skip the copy into the cache.
    connection.pragma('cache_size = -65536');
    if (options.memoryMapped !== false) connection.pragma('mmap_size = 268435456');
    connection.pragma('temp_store = MEMORY');
    if (options.readOnly) connection.pragma('query_only = ON');
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}
