import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../content/documents/ids.js';

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

/**
 * Creates the work directory, empty. Whatever is in it was left by a process that stopped in the
 * middle of an operation: only one process uses a data directory, so none of it is in use.
 */
export async function resetWorkDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}
