import type { Readable, Writable } from 'node:stream';

/** Where a command reads and writes: the process's own streams, or a test's. */
export interface CliIo {
  readonly stdout: Writable & { readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: Writable & { readonly isTTY?: boolean; readonly columns?: number };
  readonly stdin: Readable & { readonly isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (configuration, archives, output files) are resolved against it. */
  readonly cwd: string;
}

/** One command of `cms`, named by one or two words (`export`, `user create`). */
export interface CliCommand {
  readonly name: string;
  /** One line for `cms help`. */
  readonly summary: string;
  /** The arguments after the name, as `cms help <name>` shows them. */
  readonly usage: string;
  /** Answers the process's exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** Arguments a command cannot make sense of: the message and the command's usage are printed, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
