import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StorageAdapter } from './storage-adapter.js';
import { createSqliteAdapter } from './sqlite/sqlite-adapter.js';
import { createPostgresAdapter } from './postgres/postgres-adapter.js';

export interface StorageOptions {
  /** Most connections to PostgreSQL at once; the SQLite adapter has its own two. */
  readonly poolSize?: number;
  /** SQLite: worker threads for the reads whose cost grows with what they select (0: none). */
  readonly readThreads?: number;
  /** Most SQLite transactions committed together; PostgreSQL commits each alone. */
  readonly writesPerCommit?: number;
  /** SQLite: pages the write-ahead log holds before a commit copies them into the file (its default: 1,000). */
  readonly walCheckpointPages?: number;
  /**
   * The generation key that writes to the attachments count up (`StorageAdapter.generation`):
   * the caller's name for them, kept apart from its other keys (the piece type names).
   */
  readonly attachmentsGenerationKey: string;
}

/** The adapter a database URL names: `sqlite:<path>` (the default) or `postgres://…` (`postgresql://…`). */
export function createStorage(databaseUrl: string, options: StorageOptions): StorageAdapter {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    mkdirSync(dirname(filename), { recursive: true });
    const { readThreads, writesPerCommit, walCheckpointPages, attachmentsGenerationKey } = options;
    return createSqliteAdapter({ filename, readThreads, writesPerCommit, walCheckpointPages, attachmentsGenerationKey });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return createPostgresAdapter({ connectionString: databaseUrl, poolSize: options.poolSize, attachmentsGenerationKey: options.attachmentsGenerationKey });
  }
  throw new Error(`Unsupported database URL: ${databaseUrl.split(':')[0]}`);
}
