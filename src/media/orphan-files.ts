import type { AttachmentStore } from '../storage/storage-adapter.js';
import type { FileStorage } from './file-storage.js';

// `attachments/<id>-<name>…`: ids hold no "-", so the first one ends the id.
const attachmentIdOfKey = /^attachments\/([a-z0-9]+)-/;

/** Files looked up in one query of the store. */
const batchSize = 500;

export interface OrphanSweep {
  readonly files: FileStorage;
  readonly attachments: Pick<AttachmentStore, 'find'>;
  /**
   * Only files last written before this are removed: younger ones may belong to an upload whose
   * record is about to be committed (files are placed first, the record after).
   */
  readonly writtenBefore: Date;
}

/**
 * Removes the attachment files whose attachment has no record: what a process that stopped
 * between placing an upload's files and committing its record left behind. Answers how many
 * files went. Files come first and records after, so this is the only leftover a crash can make.
 */
export async function removeOrphanFiles({ files, attachments, writtenBefore }: OrphanSweep): Promise<number> {
  let removed = 0;
  let batch: { key: string; id: string }[] = [];
  const flush = async () => {
    const known = new Set((await attachments.find([...new Set(batch.map((file) => file.id))])).map((record) => record._id));
    const orphans = batch.filter((file) => !known.has(file.id));
    for (const { key } of orphans) await files.remove(key);
    removed += orphans.length;
    batch = [];
  };
  for await (const { key, info } of files.list('attachments/')) {
    const id = attachmentIdOfKey.exec(key)?.[1];
    if (id === undefined || info.modifiedAt >= writtenBefore) continue;
    batch.push({ key, id });
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  return removed;
}
