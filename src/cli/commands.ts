import type { CliCommand } from './command.js';
import { exportCommand } from './export-command.js';
import { importCommand } from './import-command.js';

/** Every command of `cms`, in the order `cms help` lists them. */
export const commands: readonly CliCommand[] = [exportCommand, importCommand];
