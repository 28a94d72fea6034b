import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { FileStorage } from './file-storage.js';

// Path segments of plain names only: no "..", no hidden files, no separators of another system.
const keyPattern = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/**
 * Files in a local directory (`CMS_DATA_DIR/uploads`), served by the HTTP layer under
 * `publicUrl` (`<baseUrl>/uploads`).
 */
export function createLocalFileStorage(options: { root: string; publicUrl: string }): FileStorage {
  const root = resolve(options.root);

  /** The absolute path of a key, or null when the key is malformed or would leave the root. */
  function pathOf(key: string): string | null {
    if (!keyPattern.test(key) || key.split('/').some((segment) => segment.startsWith('.'))) return null;
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
  };
}
