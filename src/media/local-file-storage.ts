import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isValidFileKey, type FileStorage } from './file-storage.js';

/**
 * Files in a local directory (`CMS_DATA_DIR/uploads`), served by the HTTP layer under
 * `publicUrl` (`<baseUrl>/uploads`).
 */
export function createLocalFileStorage(options: { root: string; publicUrl: string }): FileStorage {
  const root = resolve(options.root);

  /** The absolute path of a key, or null when the key is malformed or would leave the root. */
  function pathOf(key: string): string | null {
    if (!isValidFileKey(key)) return null;
    const path = resolve(root, key);
    return path.startsWith(root + sep) ? path : null;
  }

  function requirePath(key: string): string {
    const path = pathOf(key);
    if (path === null) throw new Error(`Invalid file storage key: ${JSON.stringify(key)}`);
    return path;
  }

  return {
    async put(key, localPath) {
      const target = requirePath(key);
      await mkdir(dirname(target), { recursive: true });
      try {
        // Atomic on one file system: readers see the old file or the whole new one.
        await rename(localPath, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        await copyFile(localPath, target);
        await rm(localPath, { force: true });
      }
    },

    async remove(key) {
      await rm(requirePath(key), { force: true });
    },

    async stat(key) {
      const path = pathOf(key);
      if (path === null) return null;
      try {
        const info = await stat(path);
        return info.isFile() ? { size: info.size, modifiedAt: info.mtime } : null;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw error;
      }
    },

    createReadStream(key) {
      return createReadStream(requirePath(key));
    },

    url(key) {
      return `${options.publicUrl}/${key}`;
    },

    // Placeholder until the attachment-reclaim branch brings the local driver's own version.
    async setReadable() {
      throw new Error('The local file storage cannot make files unreadable yet');
    },

    async *list(prefix) {
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const key = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
        if (!key.startsWith(prefix) || !isValidFileKey(key)) continue;
        const info = await stat(join(root, key)).catch(() => null);
        if (info) yield { key, info: { size: info.size, modifiedAt: info.mtime } };
      }
    },
  };
}
