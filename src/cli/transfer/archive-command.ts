import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AppConfig } from '../../content/app-config.js';
import type { StorageAdapter } from '../../storage/storage-adapter.js';
import { createFileStorage, type ConfiguredFileStorage } from '../../media/create-file-storage.js';
import { UsageError, type CliIo } from '../command.js';
import { loadCliConfig, withStore } from '../runtime.js';
import { createProgress, type Progress } from '../progress.js';
import type { Manifest } from './archive-format.js';

export const archiveUsage = '<archive> [--quiet]';

/** What `cms export` and `cms import` both work with: the archive's path, the store, the files, a progress display. */
export interface ArchiveRun {
  readonly path: string;
  readonly config: AppConfig;
  readonly storage: StorageAdapter;
  readonly fileStore: ConfiguredFileStorage;
  readonly progress: Progress;
}

/** `<archive> [--quiet]`: the archive's path (relative to the working directory) and whether to show progress. */
function archiveArguments(args: readonly string[], cwd: string): { path: string; quiet: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: { quiet: { type: 'boolean', short: 'q' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length !== 1) throw new UsageError('expected one archive path');
  return { path: resolve(cwd, parsed.positionals[0]!), quiet: parsed.values.quiet ?? false };
}

/** Runs `work` with the configured store and file store open, closing both after. */
export async function runArchiveCommand(args: readonly string[], io: CliIo, work: (run: ArchiveRun) => Promise<Manifest>): Promise<Manifest> {
  const { path, quiet } = archiveArguments(args, io.cwd);
  const config = await loadCliConfig(io);
  const progress = createProgress(io, { quiet });
  const fileStore = await createFileStorage(config);
  try {
    return await withStore(config, (storage) => work({ path, config, storage, fileStore, progress }));
  } finally {
    fileStore.close();
  }
}

/** One line for the end: what the archive holds. */
export function summary(manifest: Manifest): string {
  const lines = (name: string) => manifest.parts.find((part) => part.name === name)?.lines ?? 0;
  const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  return [
    counted(lines('documents.jsonl'), 'document version'),
    counted(lines('users.jsonl'), 'user'),
    counted(lines('attachments.jsonl'), 'attachment'),
    `${counted(manifest.files.count, 'file')} (${counted(manifest.files.bytes, 'byte')})`,
  ].join(', ');
}

/** `cms-server <version>`, from the package this code belongs to. */
export function generatorName(): string {
  const { name, version } = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return `${name} ${version}`;
}
