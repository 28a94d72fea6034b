import type { AppConfig } from '../content/app-config.js';
import type { StorageAdapter } from '../storage/storage-adapter.js';
import { createStorage } from '../storage/create-storage.js';
import { loadAppConfig } from '../load-app-config.js';
import type { CliIo } from './command.js';

/** The configuration the server would start with in the same directory and environment. */
export function loadCliConfig(io: CliIo): Promise<AppConfig> {
  return loadAppConfig({ env: io.env, cwd: io.cwd });
}

/** Runs `work` on the configured store, migrated first as a server's start would; closes it after. */
export async function withStore<T>(config: AppConfig, work: (storage: StorageAdapter) => Promise<T>): Promise<T> {
  const storage = createStorage(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    await storage.migrate();
    return await work(storage);
  } finally {
    await storage.close();
  }
}
