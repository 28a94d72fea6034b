import type { AttachmentStore, StorageAdapter } from '../storage/storage-adapter.js';
import type { FileStorage } from './file-storage.js';
import { attachmentKeys } from './attachment-output.js';
import { removeOrphanFiles } from './orphan-files.js';

// Rows read per query.
const batchSize = 100;
// A file made unreadable while another process made it readable again (or the reverse) is moved once more.
const settleRounds = 3;

/** What one sweep did. */
export interface SweepReport {
  /** Attachments whose files were made to match their record. */
  readonly settled: number;
  /** Unused attachments removed with their files. */
  readonly removed: number;
  /** Files removed that no record names. */
  readonly orphanFiles: number;
}

/**
 * Keeps the files of attachments as their records say, and reclaims what nothing uses
 * (original 11.3). Records and files cannot change in one transaction, so the record always
 * changes first and the files follow: a file whose record says "unreadable" (or readable) is
 * moved after the commit, and again by the next sweep if the process died in between; a record
 * is removed before its files, and a file whose record is gone is an orphan the sweep removes.
 * Every step is safe with several processes sweeping the same store.
 */
export class AttachmentReclaimer {
  readonly #store: AttachmentStore;
  readonly #transaction: StorageAdapter['transaction'];
  readonly #files: FileStorage;
  readonly #graceMs: number;

  constructor(deps: { storage: Pick<StorageAdapter, 'attachments' | 'transaction'>; files: FileStorage; graceMs: number }) {
    this.#store = deps.storage.attachments;
    this.#transaction = deps.storage.transaction;
    this.#files = deps.files;
    this.#graceMs = deps.graceMs;
  }

  /** Makes the files of these attachments readable or not, as their records say now. */
  async settle(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.#settleOne(id);
  }

  /**
   * Moves the files of one attachment, then reads the record again: a write that changed it
   * meanwhile moves them too, but may have done so before this process did, so the last mover
   * is the one that saw the last state. Marks the record's files as matching only then.
   */
  async #settleOne(id: string): Promise<boolean> {
    for (let round = 0; round < settleRounds; round++) {
      const [state] = await this.#store.fileStates([id]);
      const [record] = await this.#store.find([id]);
      // A removed attachment's files are removed with it, or swept as orphans.
      if (!state || !record) return true;
      await Promise.all(attachmentKeys(record).map((key) => this.#files.setReadable(key, state.readable)));
      const [after] = await this.#store.fileStates([id]);
      if (!after) return true;
      if (after.readable === state.readable) {
        await this.#store.markFiles(id, state.readable);
        return true;
      }
    }
    return false;
  }

  /**
   * One pass over the store: files behind their records are made to match; attachments no
   * version has held for the grace period are removed, record first, then files; files older
   * than the grace period whose attachment has no record are removed.
   */
  async sweep(now = Date.now()): Promise<SweepReport> {
    const before = now - this.#graceMs;
    return {
      settled: await this.#settleBehind(),
      removed: await this.#removeUnused(before),
      orphanFiles: await removeOrphanFiles({ files: this.#files, attachments: this.#store, writtenBefore: new Date(before) }),
    };
  }

  async #settleBehind(): Promise<number> {
    const tried = new Set<string>();
    let settled = 0;
    for (;;) {
      // An attachment that would not settle (processes moving its files all along) waits for the next sweep.
      const batch = (await this.#store.unsettledFiles(batchSize + tried.size)).filter((state) => !tried.has(state.id));
      if (batch.length === 0) return settled;
      for (const { id } of batch) {
        tried.add(id);
        if (await this.#settleOne(id)) settled++;
      }
    }
  }

  async #removeUnused(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.#store.findUnused(before, batchSize);
      let removedNow = 0;
      for (const record of batch) {
        // Another process, or a write that took the attachment up again, may have been first. A
        // write takes up an attachment under its lock (VersionWriter): holding it, the removal
        // sees that write's use, or the write then finds the attachment gone.
        const gone = await this.#transaction({ lockAttachments: [record._id] }, (tx) => tx.attachments.removeUnused(record._id, before));
        if (!gone) continue;
        await Promise.all(attachmentKeys(record).map((key) => this.#files.remove(key)));
        removedNow++;
      }
      removed += removedNow;
      if (removedNow === 0) return removed;
    }
  }

}

/**
 * Sweeps once now and then every `intervalMs` on a timer that does not keep the process alive;
 * a sweep still running when the next is due is not doubled. `stop` waits for a running sweep.
 */
export function scheduleSweeps(sweep: () => Promise<unknown>, options: { intervalMs: number; onError(error: unknown): void }) {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= sweep()
      .then(() => undefined, options.onError)
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  run();
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
