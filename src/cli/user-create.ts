import { roles, userTypeName } from '../core/principal.js';
import type { CliCommand } from './command.js';
import { parseArguments } from './arguments.js';
import { readNewPassword } from './password-input.js';
import { commandLineOperator, loadCliConfig, withDocuments } from './runtime.js';

export const passwordNote =
  'The password is asked twice on the terminal, or read from standard input with --password-stdin.\n' +
  'It is never taken as an argument: it would stay in the shell history.';

/** `cms user create`: a user, through the insert operation like one made in the admin, so every rule of the user type holds. */
export const userCreateCommand: CliCommand = {
  name: 'user create',
  summary: 'create a user (asks for the password)',
  usage: `<username> [--email <email>] [--role ${roles.join('|')}] [--title <display name>] [--password-stdin]\n\n${passwordNote}\nThe role is guest unless --role says otherwise; the display name is the username unless --title says otherwise.`,
  async run(args, io) {
    const { values, positionals } = parseArguments(
      args,
      { email: { type: 'string' }, role: { type: 'string' }, title: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
      ['username'],
    );
    const username = positionals[0]!;
    const config = await loadCliConfig(io);
    const password = await readNewPassword(io, values['password-stdin'] === true);
    const fields: Record<string, unknown> = { username, password, title: values.title ?? username };
    if (values.email !== undefined) fields.email = values.email;
    if (values.role !== undefined) fields.role = values.role;
    const { document: user } = await withDocuments(config, (documents) => documents.insert({ principal: commandLineOperator }, userTypeName, fields));
    io.stdout.write(`Created the user ${String(user.username)} (id ${String(user._id)}, role ${String(user.role)}).\n`);
    return 0;
  },
};
