import { join } from 'node:path';
import type { FileStorageConfig } from '../config/file-storage-config.js';
import { LinkBase } from '../config/link-base.js';
import type { FileStorage } from './file-storage.js';
import { createLocalFileStorage } from './local-file-storage.js';

/** The file store a configuration names, with the local work directory that goes with it. */
export interface ConfiguredFileStorage {
  readonly files: FileStorage;
  /** Where finished files are written before `put` moves them in: on the same file system as a local store. */
  readonly workDir: string;
  close(): void;
}

/**
 * The file store the configuration names: `<dataDir>/uploads` served at `<links>/uploads/...`,
 * or a bucket whose files are linked at its public URL, else streamed by that same route.
 * `links` is the server's (known once it listens); without one, the configured `baseUrl`.
 * The S3 module (and the AWS SDK under it: megabytes, a third of a second to load) is imported
 * only when a bucket is configured, so a server on local files never loads it.
 */
export async function createFileStorage(
  config: { readonly dataDir: string; readonly baseUrl: string | null; readonly fileStorage: FileStorageConfig },
  links: LinkBase = new LinkBase(config.baseUrl),
): Promise<ConfiguredFileStorage> {
  const served = () => `${links.url}/uploads`;
  const settings = config.fileStorage;
  if (settings.kind === 'local') {
    const root = join(config.dataDir, 'uploads');
    // Inside the uploads directory, so finished files are moved into place by a rename.
    // Unreadable files move out of the served directory, beside it.
    const files = createLocalFileStorage({ root, privateRoot: join(config.dataDir, 'uploads-unreadable'), publicUrl: served });
    return { files, workDir: join(root, '.tmp'), close: () => undefined };
  }
  const { publicUrl } = settings;
  const { createS3FileStorage } = await import('./s3-file-storage.js');
  const files = createS3FileStorage({ ...settings, publicUrl: publicUrl === undefined ? served : () => publicUrl });
  return { files, workDir: join(config.dataDir, 'work'), close: () => files.close() };
}
