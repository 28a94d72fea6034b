import { userTypeName } from '../core/principal.js';
import type { CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { readNewPassword } from './password-input.js';
import { commandLineOperator, loadCliConfig, withDocuments } from './runtime.js';
import { passwordNote } from './user-create.js';

/**
 * `cms user password`: a new password, through the patch operation: its rules hold, and the
 * change ends every bearer token and session of the user.
 */
export const userPasswordCommand: CliCommand = {
  name: 'user password',
  summary: "set a user's password (asks for it) and sign the user out everywhere",
  usage: `<username> [--password-stdin]\n\n${passwordNote}\nEvery bearer token and session of the user ends.`,
  async run(args, io) {
    const { values, positionals } = parseArguments(args, { 'password-stdin': { type: 'boolean' } }, ['username']);
    const username = positionals[0]!;
    const config = await loadCliConfig(io);
    // Asked before the store is opened: a prompt may wait for a long time.
    const password = await readNewPassword(io, values['password-stdin'] === true);
    await withDocuments(config, async (documents, storage) => {
      const login = await storage.logins.findByName(username);
      if (!login || login.username !== username) throw new Error(`no user has the username "${username}"`);
      await documents.patch({ principal: commandLineOperator }, userTypeName, login.userId, { password });
    });
    io.stdout.write(`Changed the password of ${username}; the user is signed out everywhere.\n`);
    return 0;
  },
};
