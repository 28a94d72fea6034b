import type { CliCommand } from './command.js';
import { createFieldTypeRegistry } from '../content/fields/registry.js';
import { importArchive } from './transfer/import-archive.js';
import { archiveUsage, runArchiveCommand, summary } from './transfer/archive-command.js';

/** `cms import <archive>`: an archive of `cms export` into an empty store. */
export const importCommand: CliCommand = {
  name: 'import',
  summary: 'read an archive of cms export into an empty store (checked whole before anything is written)',
  usage: archiveUsage,
  async run(args, io) {
    const manifest = await runArchiveCommand(args, io, ({ path, config, storage, fileStore, progress }) =>
      importArchive({ config, fieldTypes: createFieldTypeRegistry(), storage, files: fileStore.files, workDir: fileStore.workDir, progress }, path),
    );
    io.stdout.write(`imported ${summary(manifest)}\n`);
    return 0;
  },
};
