import type { CliCommand } from './command.js';
import { exportArchive } from './transfer/export-archive.js';
import { archiveUsage, generatorName, runArchiveCommand, summary } from './transfer/archive-command.js';

/** `cms export <archive>`: the whole store, records and files, into one archive. */
export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'write every document, user and attachment with its files to one archive (a .tar.gz)',
  usage: archiveUsage,
  async run(args, io) {
    const manifest = await runArchiveCommand(args, io, ({ path, storage, fileStore, progress }) =>
      exportArchive({ storage, files: fileStore.files, progress, generator: generatorName(), warn: (message) => io.stderr.write(`cms export: ${message}\n`) }, path),
    );
    io.stdout.write(`exported ${summary(manifest)}\n`);
    return 0;
  },
};
