import { roles } from '../core/principal.js';
import { StoredApiKeys, maxLabelLength } from '../auth/stored-api-keys.js';
import { UsageError, type CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { loadCliConfig, withStore } from './runtime.js';

/** `cms apikey create`: a new key kept in the store; the key itself is printed once, alone on stdout. */
export const apiKeyCreateCommand: CliCommand = {
  name: 'apikey create',
  summary: 'create an API key kept in the store (shown once)',
  usage:
    `--role ${roles.join('|')} [--label <text>]\n\n` +
    'Prints the key alone on standard output, and only this once: the store keeps its SHA-256 digest.\n' +
    `The label (at most ${maxLabelLength} characters) says what the key is for in \`cms apikey list\`.`,
  async run(args, io) {
    const { values } = parseArguments(args, { role: { type: 'string' }, label: { type: 'string' } }, []);
    if (values.role === undefined) throw new UsageError('--role is required');
    const config = await loadCliConfig(io);
    const created = await withStore(config, (storage) => new StoredApiKeys(storage).create({ role: values.role!, label: values.label }));
    io.stdout.write(`${created.key}\n`);
    io.stderr.write(`Created the API key ${created.stored.id} (role ${created.stored.role}). Keep the key now: it is not shown again.\n`);
    return 0;
  },
};
