import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StorageAdapter } from './storage-adapter.js';

export interface StorageOptions {
  /** Most connections to PostgreSQL at once; the SQLite adapter has its own two. */
  readonly poolSize?: number;
  /** PostgreSQL: milliseconds a statement waits for a connection (`limits.postgresConnectTimeout`). */
  readonly connectTimeout?: number;
  /** PostgreSQL: milliseconds a statement waits for its answer (`limits.postgresStatementTimeout`). */
  readonly statementTimeout?: number;
  /** PostgreSQL read replicas (CMS_DATABASE_READ_URL) and how they are watched (`limits.readReplica*`). */
  readonly readReplicas?: { readonly urls: readonly string[]; readonly pollMs: number; readonly maxLagMs: number };
  /** SQLite: milliseconds a write waits for another process's write lock (`limits.sqliteBusyTimeout`). */
  readonly busyTimeout?: number;
  /** SQLite: worker threads for the reads whose cost grows with what they select (0: none). */
  readonly readThreads?: number;
  /** Most SQLite transactions committed together; PostgreSQL commits each alone. */
  readonly writesPerCommit?: number;
  /** SQLite: pages the write-ahead log holds before a commit copies them into the file (its default: 1,000). */
  readonly walCheckpointPages?: number;
  /** SQLite: when the planner's statistics are refreshed while the store is open (its defaults without). */
  readonly statistics?: { readonly afterRows?: number; readonly everyMs?: number };
  /**
   * The generation key that writes to the attachments count up (`StorageAdapter.generation`):
   * the caller's name for them, kept apart from its other keys (the piece type names).
   */
  readonly attachmentsGenerationKey: string;
}

/**
 * The adapter a database URL names: `sqlite:<path>` (the default) or `postgres://…` (`postgresql://…`).
 * Only that adapter and its driver are loaded: a SQLite server never holds `pg`, nor a
 * PostgreSQL one better-sqlite3 (docs/reference/stores-and-processes.md, "Memory").
 */
export async function createStorage(databaseUrl: string, options: StorageOptions): Promise<StorageAdapter> {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    mkdirSync(dirname(filename), { recursive: true });
    const { readThreads, writesPerCommit, walCheckpointPages, statistics, attachmentsGenerationKey, busyTimeout } = options;
    const { createSqliteAdapter } = await import('./sqlite/sqlite-adapter.js');
    return createSqliteAdapter({ filename, readThreads, writesPerCommit, walCheckpointPages, statistics, attachmentsGenerationKey, busyTimeout });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const { createPostgresAdapter } = await import('./postgres/postgres-adapter.js');
    const { poolSize, attachmentsGenerationKey, connectTimeout, statementTimeout, readReplicas } = options;
    return createPostgresAdapter({ connectionString: databaseUrl, poolSize, attachmentsGenerationKey, connectTimeout, statementTimeout, readReplicas });
  }
  throw new Error(`Unsupported database URL: ${databaseUrl.split(':')[0]}`);
}
