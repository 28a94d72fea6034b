import type { CliCommand } from './command.js';
import { userCreateCommand } from './user-create.js';
import { userPasswordCommand } from './user-password.js';
import { userListCommand } from './user-list.js';
import { apiKeyCreateCommand } from './apikey-create.js';
import { apiKeyListCommand } from './apikey-list.js';
import { apiKeyRevokeCommand } from './apikey-revoke.js';
import { exportCommand } from './export-command.js';
import { importCommand } from './import-command.js';
import { typesCommand } from './types-command.js';
import { mcpCommand } from './mcp-command.js';

/** Every command of `cms`, in the order `cms help` lists them. */
export const commands: readonly CliCommand[] = [
  userCreateCommand,
  userPasswordCommand,
  userListCommand,
  apiKeyCreateCommand,
  apiKeyListCommand,
  apiKeyRevokeCommand,
  exportCommand,
  importCommand,
  typesCommand,
  mcpCommand,
];
