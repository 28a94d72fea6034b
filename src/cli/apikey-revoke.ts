import { StoredApiKeys } from '../auth/stored-api-keys.js';
import type { CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { loadCliConfig, withStore } from './runtime.js';

/** `cms apikey revoke`: the key stops working with the next request, on every server process of the store. */
export const apiKeyRevokeCommand: CliCommand = {
  name: 'apikey revoke',
  summary: 'revoke an API key kept in the store; it stops working at once',
  usage: '<id>\n\nThe id is the one `cms apikey list` shows. Configured keys are removed from the configuration instead.',
  async run(args, io) {
    const { positionals } = parseArguments(args, {}, ['id']);
    const id = positionals[0]!;
    const config = await loadCliConfig(io);
    await withStore(config, (storage) => new StoredApiKeys(storage).revoke(id));
    io.stdout.write(`Revoked the API key ${id}.\n`);
    return 0;
  },
};
