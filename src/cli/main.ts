import { ValidationError } from '../errors/app-error.js';
import { UsageError, type CliCommand, type CliIo } from './command.js';
import { commands } from './commands.js';

/** The command named by the first two words, else by the first one; the rest are its arguments. */
function commandOf(argv: readonly string[]): { command: CliCommand; args: readonly string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = commands.find((candidate) => candidate.name === name);
    if (command && argv.length >= words) return { command, args: argv.slice(words) };
  }
  return null;
}

function overview(): string {
  const width = Math.max(...commands.map((command) => command.name.length), 4);
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return ['Usage: cms <command> [arguments]', '', 'Commands:', ...lines, `  ${'help'.padEnd(width)}  this list; cms help <command> shows one command's arguments`, ''].join('\n');
}

/** The synopsis (the usage's first paragraph), the summary, then the usage's notes if any. */
function usageOf(command: CliCommand): string {
  const [synopsis = '', ...notes] = command.usage.split('\n\n');
  return [`Usage: cms ${command.name} ${synopsis}`.trimEnd(), command.summary, ...notes, ''].join('\n\n').replace(/\n\n$/, '\n');
}

/**
 * Runs one command line (`argv` without the program) and answers the exit code: 0 done, 1 it
 * failed (the message says why), 2 the arguments were wrong (the usage says what is expected).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    const named = argv.length > 1 ? commandOf(argv.slice(1)) : null;
    io.stdout.write(named ? usageOf(named.command) : overview());
    return 0;
  }
  const found = commandOf(argv);
  if (!found) {
    io.stderr.write(`cms: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${overview()}`);
    return 2;
  }
  try {
    return await found.command.run(found.args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`cms ${found.command.name}: ${error.message}\n\n${usageOf(found.command)}`);
      return 2;
    }
    io.stderr.write(`cms ${found.command.name}: ${messageOf(error)}\n`);
    return 1;
  }
}

/** What went wrong, for the operator: a validation error names each field that failed. */
function messageOf(error: unknown): string {
  if (error instanceof ValidationError) {
    return error.errors.map((failure) => `${failure.path}: ${failure.message ?? failure.name}`).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}
