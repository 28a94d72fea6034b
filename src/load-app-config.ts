import { loadConfig, type LoadConfigOptions } from './config/load.js';
import { assembleAppConfig, type AppConfig } from './content/app-config.js';
import { createFieldTypeRegistry } from './content/fields/registry.js';
import type { FieldTypeLookup } from './content/types/sanitize.js';

export interface LoadAppConfigOptions extends LoadConfigOptions {
  /** Defaults to the full field-type registry. */
  readonly fieldTypes?: FieldTypeLookup;
}

/**
 * The complete configuration, as `main.ts` and the tests get it: `config` reads and checks the
 * environment and the file, then content's registry sanitizes the piece and widget types. A
 * broken configuration throws a ConfigError naming the key path.
 */
export async function loadAppConfig(options: LoadAppConfigOptions = {}): Promise<AppConfig> {
  const loaded = await loadConfig(options);
  return assembleAppConfig(loaded, options.fieldTypes ?? createFieldTypeRegistry());
}
