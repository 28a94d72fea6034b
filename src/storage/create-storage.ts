import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StorageAdapter } from './storage-adapter.js';
import { createSqliteAdapter } from './sqlite/sqlite-adapter.js';

/** The adapter a database URL names: `sqlite:<path>` (the default), PostgreSQL later. */
export function createStorage(databaseUrl: string): StorageAdapter {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    mkdirSync(dirname(filename), { recursive: true });
    return createSqliteAdapter({ filename });
  }
  throw new Error(`Unsupported database URL: ${databaseUrl.split(':')[0]}`);
}
