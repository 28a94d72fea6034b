import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options and positional arguments of one command (`node:util` parseArgs, strict): an unknown
 * option, a missing value or a wrong number of positionals is a UsageError (exit code 2).
 */
export function parseArguments<const O extends Options>(args: readonly string[], options: O, positionals: readonly string[]) {
  refusePasswordArgument(args);
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(error.message);
    throw error;
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? 'no arguments' : positionals.map((name) => `<${name}>`).join(' ');
    throw new UsageError(`expected ${expected} besides the options, got ${parsed.positionals.length}`);
  }
  return parsed;
}

/** A password given on the command line stays in the shell's history and in the process list. */
function refusePasswordArgument(args: readonly string[]): void {
  if (args.some((arg) => arg === '--password' || arg.startsWith('--password='))) {
    throw new UsageError('a password is never taken as an argument (it would stay in the shell history): answer the prompt, or pipe it with --password-stdin');
  }
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}
