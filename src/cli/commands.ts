import type { CliCommand } from './command.js';

/** Every command of `cms`, in the order `cms help` lists them. */
export const commands: readonly CliCommand[] = [];
