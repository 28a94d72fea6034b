import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';

/**
 * The visibility each version had before a transaction first wrote it: the change log records it
 * with the change (`visibilityBefore`), so that a sync can tell those who could read the version
 * that it left their view, and name it to no one who never could. `VersionWriter` notes it as it
 * overwrites or removes a version; `ChangeRecorder` reads it.
 */
export class PriorVisibility {
  readonly #bySession = new WeakMap<StorageSession, Map<string, string>>();

  /** Notes the stored versions about to change; a version the transaction wrote already keeps its first note. */
  note(session: StorageSession, stored: readonly StoredDocument[]): void {
    let noted = this.#bySession.get(session);
    if (!noted) this.#bySession.set(session, (noted = new Map()));
    for (const doc of stored) if (!noted.has(doc._id)) noted.set(doc._id, typeof doc.visibility === 'string' ? doc.visibility : 'public');
  }

  /** The visibility the version had before the transaction; undefined when it did not overwrite or remove it. */
  of(session: StorageSession, id: string): string | undefined {
    return this.#bySession.get(session)?.get(id);
  }
}
