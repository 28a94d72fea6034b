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
}

/** The adapter a database URL names: `sqlite:<path>` (the default) or `postgres://…` (`postgresql://…`). */
export function createStorage(databaseUrl: string, options: StorageOptions = {}): StorageAdapter {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    mkdirSync(dirname(filename), { recursive: true });
    return createSqliteAdapter({ filename, readThreads: options.readThreads, writesPerCommit: options.writesPerCommit });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return createPostgresAdapter({ connectionString: databaseUrl, poolSize: options.poolSize });
  }
  throw new Error(`Unsupported database URL: ${databaseUrl.split(':')[0]}`);
}
