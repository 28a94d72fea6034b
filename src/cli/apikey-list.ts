import { StoredApiKeys } from '../auth/stored-api-keys.js';
import type { CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { loadCliConfig, withStore } from './runtime.js';
import { formatTable } from './table.js';

/** `cms apikey list`: the stored keys, never a key itself: its first characters tell them apart. */
export const apiKeyListCommand: CliCommand = {
  name: 'apikey list',
  summary: 'list the API keys kept in the store (not the configured ones)',
  usage: "\n\nShows each key's id, role, first characters, creation and last use (recorded once a minute at most), and label.",
  async run(args, io) {
    parseArguments(args, {}, []);
    const config = await loadCliConfig(io);
    const keys = await withStore(config, (storage) => new StoredApiKeys(storage).list());
    const rows = keys.map((key) => [key.id, key.role, `${key.hint}…`, key.createdAt, key.lastUsedAt ?? 'never', key.label]);
    io.stdout.write(formatTable([['ID', 'ROLE', 'KEY', 'CREATED', 'LAST USED', 'LABEL'], ...rows]));
    return 0;
  },
};
