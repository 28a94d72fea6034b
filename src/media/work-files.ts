import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../core/ids.js';

/**
 * The temporary files of one operation (the received upload, rendered sizes before they are
 * moved into place), all named `<random id>.<purpose>` in the work directory and removed
 * together when the operation ends, whether it succeeded or not.
 */
export class WorkFiles {
  readonly #dir: string;
  readonly #prefix = newId();
  readonly #paths: string[] = [];

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** A new path in the work directory; nothing is created. */
  path(purpose: string): string {
    const path = join(this.#dir, `${this.#prefix}.${purpose}`);
    this.#paths.push(path);
    return path;
  }

  /** Removes every file handed out that is still there (moved ones are gone already). */
  async cleanup(): Promise<void> {
    await Promise.all(this.#paths.map((path) => rm(path, { force: true })));
  }
}

/** The bytes these files take together. */
export async function totalLength(paths: readonly string[]): Promise<number> {
  const sizes = await Promise.all(paths.map(async (path) => (await stat(path)).size));
  return sizes.reduce((sum, size) => sum + size, 0);
}

/** No operation keeps a work file this long: an older one was left by a process that stopped. */
export const staleWorkFileAge = 24 * 60 * 60 * 1000;

/**
 * Creates the work directory and removes what stopped processes left in it. Only stale files
 * go: other server processes sharing the uploads directory may be receiving files right now.
 */
export async function prepareWorkDir(dir: string, now = Date.now()): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > staleWorkFileAge) await rm(path, { recursive: true, force: true });
  }
}
