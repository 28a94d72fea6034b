import type { AppConfig } from '../app-config.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentIndexer } from '../indexing/document-indexer.js';
import type { AttachmentRefs } from './attachment-refs.js';
import type { AttachmentUsage } from './attachment-usage.js';
import { ConflictError } from '../../errors/app-error.js';
import { checkStoredDocument } from '../stored-shape.js';
import { checkDocumentSize } from './document-size.js';
import { pieceTypeOf } from './caller.js';
import { parseDocumentId } from '../../core/ids.js';
import { later, ReverseBookkeeping } from './reverse-bookkeeping.js';
import type { HistoryRecorder } from './history-recorder.js';
import { removeSchedules } from './schedules.js';
import type { PriorVisibility } from './prior-visibility.js';

/**
 * Every document write goes through `insert`, `update`, `updateBookkeeping` or `remove`, in a
 * transaction of `TransactionRunner`: they keep the filter index, the search texts, the
 * attachments' usage and the related documents' `relatedReverseIds` in step with the document,
 * in that transaction. A version written with new content has `cacheInvalidatedAt` equal to its
 * `updatedAt`, as the original's.
 */
export class VersionWriter {
  readonly #config: AppConfig;
  readonly #indexer: DocumentIndexer;
  readonly #refs: AttachmentRefs;
  readonly #usage: AttachmentUsage;
  readonly #reverse: ReverseBookkeeping;
  readonly #history: HistoryRecorder;
  readonly #prior: PriorVisibility;

  constructor(deps: {
    config: AppConfig;
    indexer: DocumentIndexer;
    refs: AttachmentRefs;
    usage: AttachmentUsage;
    reverse: ReverseBookkeeping;
    history: HistoryRecorder;
    prior: PriorVisibility;
  }) {
    this.#config = deps.config;
    this.#indexer = deps.indexer;
    this.#refs = deps.refs;
    this.#usage = deps.usage;
    this.#reverse = deps.reverse;
    this.#history = deps.history;
    this.#prior = deps.prior;
  }

  /** Stores a new version with its filter values and search texts. */
  async insert(session: StorageSession, doc: StoredDocument): Promise<void> {
    doc.cacheInvalidatedAt = later(doc.cacheInvalidatedAt, doc.updatedAt);
    await session.documents.insert(doc, this.#storable(doc));
    await this.#trackAttachments(session, doc);
    await this.#reverse.afterWrite(session, pieceTypeOf(this.#config, doc.type), { before: null, after: doc }, doc.updatedAt);
  }

  /** Replaces a stored version, its filter values and search texts with it. */
  async update(session: StorageSession, doc: StoredDocument): Promise<boolean> {
    const type = pieceTypeOf(this.#config, doc.type);
    // What it related to before, and its visibility before (the change log's).
    const [before] = await session.documents.find({ type: type.name, ids: [doc._id] });
    if (before) this.#prior.note(session, [before]);
    doc.cacheInvalidatedAt = later(doc.cacheInvalidatedAt, doc.updatedAt);
    const updated = await session.documents.update(doc, this.#storable(doc));
    if (!updated) return false;
    await this.#trackAttachments(session, doc);
    // Only types that can relate read what it related to before.
    const related = this.#reverse.relates(type) ? (before ?? null) : null;
    await this.#reverse.afterWrite(session, type, { before: related, after: doc }, doc.updatedAt);
    return true;
  }

  /**
   * Saves a version whose fields did not change, only its bookkeeping (`modified`,
   * `lastPublishedAt`): its attachments' usage and related documents stay as stored. A draft's
   * index is derived again, as its bookkeeping keys (`ownKeys`: the dashboard's) follow
   * `modified`; another version's stays.
   */
  async updateBookkeeping(session: StorageSession, doc: StoredDocument): Promise<boolean> {
    return session.documents.update(doc, doc.cmsMode === 'draft' ? this.#storable(doc) : undefined);
  }

  /** Removes versions of the type (missing ones are skipped); returns how many there were. */
  async remove(session: StorageSession, type: SanitizedPieceType, ids: readonly string[]): Promise<number> {
    // A `previous` copy leaves no bookkeeping (ReverseBookkeeping.afterWrite) and no change: it is not read back.
    const live = ids.filter((id) => parseDocumentId(id).mode !== 'previous');
    const gone = live.length > 0 ? await session.documents.find({ type: type.name, ids: live }) : [];
    this.#prior.note(session, gone);
    const removed = await session.documents.remove(type.name, ids);
    const now = new Date().toISOString();
    if (this.#reverse.keepsBooks(type)) for (const before of gone) await this.#reverse.afterWrite(session, type, { before, after: null }, now);
    await session.advisoryLocks.removeAll(ids);
    // A draft removed is its document deleted in that locale: its history goes with it.
    if (removed > 0) await this.#history.forgetRemoved(session, type, ids);
    // And its schedules: a draft made again under the same id (a new localize) starts with none.
    if (removed > 0) await removeSchedules(session, ids.filter((id) => parseDocumentId(id).mode === 'draft'));
    // Only the usage of versions removed: another type's version under one of these ids keeps its own.
    if (removed > 0) for (const id of ids) this.#usage.note(session, await session.attachments.setUsage(id, [], false));
    return removed;
  }

  /** The attachments a version holds now are recorded as used by it, live or archived (original 11.3). */
  async #trackAttachments(session: StorageSession, doc: StoredDocument): Promise<void> {
    const ids = this.#refs.ids(pieceTypeOf(this.#config, doc.type), doc);
    if (ids.length > 0) {
      // The sweep removes an attachment unused for its grace period under the same lock: one this
      // write takes up is then either still there, and kept, or gone, and the write refused.
      const found = await session.attachments.findHeld(ids);
      if (found.length < new Set(ids).size) throw new ConflictError('An attachment of this document was removed meanwhile: upload it again.');
    }
    this.#usage.note(session, await session.attachments.setUsage(doc._id, ids, doc.archived));
  }

  /**
   * Adds the derived properties to a version about to be stored and answers its filter index;
   * refuses it (400) when it breaks a bound `cms import` checks, so every store can be restored.
   */
  #storable(doc: StoredDocument) {
    const { index, properties } = this.#indexer.index(pieceTypeOf(this.#config, doc.type), doc);
    Object.assign(doc, properties);
    checkStoredDocument(doc, this.#config.limits.archiveRecordBytes);
    checkDocumentSize(doc, this.#config.limits.documentBytes);
    return index;
  }
}
