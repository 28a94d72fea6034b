import type { StorageSession } from '../../storage/storage-adapter.js';

/**
 * Per open transaction, the attachments whose usage its writes changed (`VersionWriter` notes
 * them), and what that decides of their files before it commits (`TransactionRunner`).
 */
export class AttachmentUsage {
  readonly #changed = new WeakMap<StorageSession, Set<string>>();

  /** Starts noting the changes of a transaction that is opening. */
  begin(session: StorageSession): void {
    this.#changed.set(session, new Set());
  }

  note(session: StorageSession, attachmentIds: readonly string[]): void {
    const changed = this.#changed.get(session);
    // A write outside `TransactionRunner` would leave the attachments' files as they were.
    if (!changed) throw new Error('Document versions are written in a transaction of TransactionRunner');
    for (const id of attachmentIds) changed.add(id);
  }

  /**
   * The files of an attachment are served while a version that is not archived holds it
   * (original 11.3): one that only archived versions hold, or none any more, is not served,
   * and is again once a live version holds it. Answers the attachments that changed.
   */
  async decideReadable(session: StorageSession): Promise<string[]> {
    const ids = [...(this.#changed.get(session) ?? [])];
    if (ids.length === 0) return [];
    // Writers of other documents may change the same attachments' usage side by side (PostgreSQL):
    // each decides after the one before it committed, reading what it left.
    const records = await session.attachments.findHeld(ids);
    const live = records.filter((record) => record.docIds.length > 0).map((record) => record._id);
    const dormant = records.filter((record) => record.docIds.length === 0).map((record) => record._id);
    return [...(await session.attachments.setReadable(live, true)), ...(await session.attachments.setReadable(dormant, false))];
  }
}
