import { createReadStream, type Dirent } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { isValidFileKey, type FileStorage, type StoredFileInfo } from './file-storage.js';
const statsAtOnce = 32;

/**
 * Files in a local directory (`CMS_DATA_DIR/uploads`), served by the HTTP layer under
 * `publicUrl()` (`<baseUrl>/uploads`, asked at each link: without a configured `baseUrl`, the
 * server's is known once it listens). An unreadable file is moved to the same key under
 * `privateRoot` (default: `<root>-unreadable`), outside the served directory: permissions would not stop a server running as
 * root, nor a web server that serves the directory itself.
 */
export function createLocalFileStorage(options: { root: string; publicUrl: () => string; privateRoot?: string }): FileStorage {
  const root = resolve(options.root);
  const privateRoot = resolve(options.privateRoot ?? `${root}-unreadable`);

  /** The absolute path of a key under `base`, or null when the key is malformed or would leave it. */
  function pathOf(key: string, base = root): string | null {
    if (!isValidFileKey(key)) return null;
    const path = resolve(base, key);
    return path.startsWith(base + sep) ? path : null;
  }

  function requirePath(key: string, base = root): string {
    const path = pathOf(key, base);
    if (path === null) throw new Error(`Invalid file storage key: ${JSON.stringify(key)}`);
    return path;
  }

  return {
    async put(key, localPath) {
      await moveFile(localPath, requirePath(key));
    },

    async remove(key) {
      await rm(requirePath(key), { force: true });
      await rm(requirePath(key, privateRoot), { force: true });
    },

    async stat(key, location) {
      const path = pathOf(key, location?.unreadable ? privateRoot : root);
      return path === null ? null : fileInfo(path);
    },

    createReadStream(key, location) {
      return createReadStream(requirePath(key, location?.unreadable ? privateRoot : root));
    },

    url(key) {
      return `${options.publicUrl()}/${key}`;
    },

    async setReadable(key, readable) {
      const [from, to] = readable ? [requirePath(key, privateRoot), requirePath(key)] : [requirePath(key), requirePath(key, privateRoot)];
      try {
        await moveFile(from, to);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },

    async *list(prefix) {
      // Both directories hold stored keys; a key in both (moved back and forth by two processes) is listed once.
      const seen = new Set<string>();
      const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1).replace(/\/$/, '');
      if (dir && !isValidFileKey(dir)) return;
      for (const base of [root, privateRoot]) {
        for await (const keys of fileKeysUnder(base, dir)) {
          const wanted = keys.filter((key) => key.startsWith(prefix) && !seen.has(key));
          // Stat calls run on the thread pool: a few at once instead of one after another.
          for (let start = 0; start < wanted.length; start += statsAtOnce) {
            const chunk = wanted.slice(start, start + statsAtOnce);
            const infos = await Promise.all(chunk.map((key) => fileInfo(join(base, key))));
            for (const [index, key] of chunk.entries()) {
              const info = infos[index];
              if (!info) continue;
              seen.add(key);
              yield { key, info };
            }
          }
        }
      }
    },
  };
}


/** Renames `from` to `to` (atomic on one file system: readers see the old file or the whole new one), creating its directory. */
async function moveFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

async function fileInfo(path: string): Promise<StoredFileInfo | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? { size: info.size, modifiedAt: info.mtime } : null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** The keys of the files below `dir` (relative to `base`), one directory at a time, skipping hidden entries such as the work directory. */
async function* fileKeysUnder(base: string, dir: string): AsyncGenerator<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(base, dir), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const keyOf = (entry: Dirent) => (dir ? `${dir}/${entry.name}` : entry.name);
  yield entries.filter((entry) => entry.isFile()).map(keyOf).filter(isValidFileKey);
  for (const entry of entries) {
    if (entry.isDirectory() && isValidFileKey(keyOf(entry))) yield* fileKeysUnder(base, keyOf(entry));
  }
}
