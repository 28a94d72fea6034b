import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { HistoryScope, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { newId, parseDocumentId } from '../../core/ids.js';
import { pieceTypeOf } from './caller.js';
import { updatedBy } from './new-version.js';
import { shareKeyProperty } from './draft-sharing.js';
import { scheduleProperties } from './schedules.js';

/**
 * The kinds of change a history entry records: a webhook event's name, or a finer one for the
 * changes webhooks tell as an `update` (the reverts, a localize, a restore from history).
 */
export type HistoryAction =
  | 'insert'
  | 'update'
  | 'publish'
  | 'unpublish'
  | 'archive'
  | 'restore'
  | 'revert-draft-to-published'
  | 'revert-published-to-previous'
  | 'localize'
  | 'restore-history';

const dayMs = 86_400_000;

/**
 * What a version keeps in its entries: all but the draft's share key, a secret that would outlive
 * its unsharing there, and its schedules, which the schedule index holds and an old entry would
 * show as still pending. Neither is content: a restore never brings them back either.
 */
function historyDataOf(doc: StoredDocument): Record<string, unknown> {
  const data = structuredClone(doc) as Record<string, unknown>;
  for (const property of [shareKeyProperty, ...Object.values(scheduleProperties)]) delete data[property];
  return data;
}

/** The history of a document set in one locale (null for a version that has none: a type without locales). */
export function historyScopeOf(doc: StoredDocument): HistoryScope | null {
  if (!doc.cmsLocale) return null;
  return { type: doc.type, docId: doc.cmsDocId, locale: doc.cmsLocale.split(':')[0]! };
}

/**
 * Keeps the history of document versions: an entry per saved change, written in the change's
 * own transaction, with who made it and the content the version held after it. The change
 * recorder calls `record` for every change it records (ChangeRecorder.recorded), so an operation
 * (or the system, a scheduled publish) that records its change leaves its entry too.
 */
export class HistoryRecorder {
  readonly #config: AppConfig;

  constructor(deps: { config: AppConfig }) {
    this.#config = deps.config;
  }

  /**
   * Records that `doc` was saved by `principal` with this action. An `update` by the same caller
   * to the same version within the merge window of the newest entry, itself an `update`, replaces
   * that entry's content (an editor's autosaves make one entry). Then prunes the document's
   * entries past the type's retention, with indexed deletes.
   */
  async record(tx: StorageSession, action: HistoryAction, doc: StoredDocument, principal: Principal): Promise<void> {
    const scope = historyScopeOf(doc);
    if (!scope) return;
    const type = pieceTypeOf(this.#config, doc.type);
    const { maxEntries, maxAgeDays } = this.retentionOf(type);
    if (maxEntries === 0) return;
    const now = Date.now();
    const author = updatedBy(principal);
    const data = historyDataOf(doc);
    const latest = action === 'update' ? await tx.history.latest(scope) : null;
    if (latest && this.#merges(latest, { versionId: doc._id, author, now })) {
      await tx.history.merge(scope, latest._id, { createdAt: Math.max(now, latest.createdAt), updatedBy: author, data });
      return;
    }
    const entry = { ...scope, _id: newId(), versionId: doc._id, cmsMode: doc.cmsMode ?? '', action, createdAt: now, startedAt: now, updatedBy: author, data };
    await tx.history.append(entry);
    await tx.history.prune(scope, { keep: maxEntries, before: now - maxAgeDays * dayMs });
  }

  /** Forgets the history of the versions removed that were drafts: their document is gone in that locale. */
  async forgetRemoved(tx: StorageSession, type: SanitizedPieceType, removedIds: readonly string[]): Promise<void> {
    const byDoc = new Map<string, string[]>();
    for (const id of removedIds) {
      const { docId, locale, mode } = parseDocumentId(id);
      if (mode !== 'draft' || !locale) continue;
      byDoc.set(docId, [...(byDoc.get(docId) ?? []), locale]);
    }
    for (const [docId, locales] of byDoc) await tx.history.removeDocument(type.name, docId, locales);
  }

  /** The type's retention, or the configured defaults. */
  retentionOf(type: SanitizedPieceType): { maxEntries: number; maxAgeDays: number } {
    const { limits } = this.#config;
    return {
      maxEntries: type.options.history.maxEntries ?? limits.historyMaxEntries,
      maxAgeDays: type.options.history.maxAgeDays ?? limits.historyMaxAgeDays,
    };
  }

  #merges(latest: { action: string; versionId: string; updatedBy: { _id: string | null; username: string | null }; startedAt: number }, save: { versionId: string; author: { _id: string | null; username: string | null }; now: number }): boolean {
    const windowMs = this.#config.limits.historyMergeSeconds * 1000;
    return (
      latest.action === 'update' &&
      latest.versionId === save.versionId &&
      latest.updatedBy._id === save.author._id &&
      latest.updatedBy.username === save.author.username &&
      save.now - latest.startedAt < windowMs
    );
  }
}
