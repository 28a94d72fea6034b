import { userTypeName } from '../core/principal.js';
import type { CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { loadCliConfig, withStore } from './runtime.js';
import { formatTable } from './table.js';

/** `cms user list`: every user, oldest first, with what an operator needs to pick one. */
export const userListCommand: CliCommand = {
  name: 'user list',
  summary: 'list the users',
  usage: '',
  async run(args, io) {
    parseArguments(args, {}, []);
    const config = await loadCliConfig(io);
    const users = await withStore(config, (storage) =>
      storage.documents.find({ type: userTypeName, sort: [{ field: 'createdAt', direction: 1 }, { field: '_id', direction: 1 }] }),
    );
    const state = (user: Record<string, unknown>) => (user.archived === true ? 'archived' : user.disabled === true ? 'disabled' : 'active');
    const rows = users.map((user) => [user._id, String(user.username ?? ''), String(user.email ?? ''), String(user.role ?? ''), state(user), user.title]);
    io.stdout.write(formatTable([['ID', 'USERNAME', 'EMAIL', 'ROLE', 'STATE', 'TITLE'], ...rows]));
    return 0;
  },
};
