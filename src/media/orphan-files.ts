import type { AttachmentStore } from '../storage/storage-adapter.js';
import type { FileStorage } from './file-storage.js';
import { attachmentKeys } from './attachment-output.js';
import { attachmentIdOfKey } from './naming.js';

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
 * Removes the attachment files no record names: what a process that stopped between placing an
 * operation's files and committing its record left behind (an upload's files without a record,
 * a crop's files its record does not list). Answers how many files went. Files come first and
 * records after, so this is the only leftover a crash can make.
 */
export async function removeOrphanFiles({ files, attachments, writtenBefore }: OrphanSweep): Promise<number> {
  let removed = 0;
  let batch: { key: string; id: string }[] = [];
  // The records of one batch of files are read at once: a bucket may hold millions of files.
  const flush = async () => {
    const records = await attachments.find([...new Set(batch.map((file) => file.id))]);
    const named = new Set(records.flatMap(attachmentKeys));
    const orphans = batch.filter((file) => !named.has(file.key));
    for (const { key } of orphans) await files.remove(key);
    removed += orphans.length;
    batch = [];
  };
  for await (const { key, info } of files.list('attachments/')) {
    const id = attachmentIdOfKey(key);
    if (id === null || info.modifiedAt >= writtenBefore) continue;
    batch.push({ key, id });
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  return removed;
}
