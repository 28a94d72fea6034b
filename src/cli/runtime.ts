import type { AppConfig } from '../content/app-config.js';
import type { Principal } from '../core/principal.js';
import { commandLine } from '../core/audit.js';
import type { StorageAdapter } from '../storage/storage-adapter.js';
import type { DocumentOperations } from '../content/documents/document-operations.js';
import { createStorage } from '../storage/create-storage.js';
import { loadAppConfig } from '../load-app-config.js';
import type { CliIo } from './command.js';
import { attachmentsGenerationKey } from '../content/generation-keys.js';
import type { ContentServices } from '../content-services.js';

/** The configuration the server would start with in the same directory and environment. */
export function loadCliConfig(io: CliIo): Promise<AppConfig> {
  return loadAppConfig({ env: io.env, cwd: io.cwd });
}

/** Runs `work` on the configured store, migrated first as a server's start would; closes it after. */
export async function withStore<T>(config: AppConfig, work: (storage: StorageAdapter) => Promise<T>): Promise<T> {
  const storage = await createStorage(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeout: config.limits.postgresConnectTimeout,
    statementTimeout: config.limits.postgresStatementTimeout,
    busyTimeout: config.limits.sqliteBusyTimeout,
    attachmentsGenerationKey,
  });
  try {
    await storage.migrate();
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/**
 * Who the command line acts as in the content layer: whoever may run it holds the store, so it
 * may do what an admin may, and what it writes is recorded as its work.
 */
export const commandLineOperator: Principal = commandLine.principal;

/** Runs `work` with the server's own document operations on the configured store (`withStore`). */
export function withDocuments<T>(
  config: AppConfig,
  work: (documents: DocumentOperations, storage: StorageAdapter, content: ContentServices) => Promise<T>,
): Promise<T> {
  return withStore(config, async (storage) => {
    // Loaded when needed: the content services' modules (sharp among them) take seconds to load
    // on a busy machine, and the other commands need none of them.
    const { createContentServices } = await import('../content-services.js');
    const content = await createContentServices(config, storage);
    try {
      return await work(content.documents, storage, content);
    } finally {
      content.close();
    }
  });
}
