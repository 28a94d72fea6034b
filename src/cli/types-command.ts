import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { openApiDocument } from '../http/openapi/openapi-document.js';
import { UsageError, type CliCommand, type CliIo } from './command.js';
import { loadCliConfig } from './runtime.js';
import { typesModule } from './types/types-module.js';

/** `--out <file>` or `--out=<file>`; nothing else is accepted. */
function outputOf(args: readonly string[]): string | undefined {
  let out: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const value = arg === '--out' ? args[(index += 1)] : arg.startsWith('--out=') ? arg.slice('--out='.length) : undefined;
    if (value === undefined) throw new UsageError(arg === '--out' ? '--out needs a file name' : `unknown argument "${arg}"`);
    if (value === '') throw new UsageError('--out needs a file name');
    if (out !== undefined) throw new UsageError('--out may be given once');
    out = value;
  }
  return out;
}

async function currentText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `cms types`: the TypeScript types of the configured piece types, written from the schemas of
 * the OpenAPI document the server publishes, so the two cannot disagree.
 */
export const typesCommand: CliCommand = {
  name: 'types',
  summary: 'write TypeScript types of the configured piece types (for cms-server/client)',
  usage: '[--out <file>]   (default: standard output)',
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const out = outputOf(args);
    const source = typesModule(openApiDocument(await loadCliConfig(io)));
    if (out === undefined) {
      io.stdout.write(source);
      return 0;
    }
    const file = resolve(io.cwd, out);
    // An unchanged file is left alone, so watchers and incremental builds see no change.
    const unchanged = (await currentText(file)) === source;
    if (!unchanged) await writeFile(file, source);
    io.stdout.write(`${unchanged ? 'unchanged' : 'wrote'} ${file}\n`);
    return 0;
  },
};
