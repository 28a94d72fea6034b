import type { CliCommand } from './command.js';
import { typesCommand } from './types-command.js';

/** Every command of `cms`, in the order `cms help` lists them. */
export const commands: readonly CliCommand[] = [typesCommand];
