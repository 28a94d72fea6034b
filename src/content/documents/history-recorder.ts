import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { HistoryHead, HistoryScope, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SchemaValueReader } from './schema-value-reader.js';
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
  | 'restore-history'
  | 'review.stage'
  | 'review.comment';

const dayMs = 86_400_000;

/** How many entries each share of a document's history keeps, and for how long (HistoryRecorder.retentionOf). */
export interface HistoryRetention {
  readonly maxEntries: number;
  readonly maxPublishEntries: number;
  readonly maxAgeDays: number;
}

/** The document's first entry: pruned by age only, whatever the count of the others. */
const firstPool = 'first';

/**
 * The share of a document's history an entry counts against (its pool): the first entry; or, per
 * role of its author, the publishes or the other changes. Pruning by count removes the oldest of
 * the new entry's pool only, so no writer pushes out the first entry, or another role's entries,
 * or its own publishes by saving; and each pool is bounded, so the history is.
 */
function poolOf(action: HistoryAction, principal: Principal, first: boolean): string {
  if (first) return firstPool;
  return `${action === 'publish' ? 'publish' : 'change'}:${principal.role ?? 'none'}`;
}

function keptIn(pool: string, retention: HistoryRetention): number {
  if (pool === firstPool) return 1;
  return pool.startsWith('publish:') ? retention.maxPublishEntries : retention.maxEntries;
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
  readonly #values: SchemaValueReader;

  constructor(deps: { config: AppConfig; values: SchemaValueReader }) {
    this.#config = deps.config;
    this.#values = deps.values;
  }

  /**
   * Records that `doc` was saved by `principal` with this action. An `update` by the same caller
   * to the same version within the merge window of the newest entry, itself an `update` of the
   * same pool, replaces that entry's content (an editor's autosaves make one entry). Then prunes
   * the entries past the age, and the oldest of the new entry's pool past its count, with indexed
   * deletes: each write removes what it pushed out and what aged, never reads the whole history.
   */
  async record(tx: StorageSession, action: HistoryAction, doc: StoredDocument, principal: Principal): Promise<void> {
    const scope = historyScopeOf(doc);
    if (!scope) return;
    const type = pieceTypeOf(this.#config, doc.type);
    const retention = this.retentionOf(type);
    if (retention.maxEntries === 0) return;
    const now = Date.now();
    const author = updatedBy(principal);
    const latest = await tx.history.latest(scope);
    const pool = poolOf(action, principal, latest === null);
    // A copy of the version as it is now: written (as JSON) by the call below that takes it.
    const data = this.#dataOf(type, doc);
    if (action === 'update' && latest && this.#merges(latest, { versionId: doc._id, author, pool, now })) {
      await tx.history.merge(scope, latest._id, { createdAt: Math.max(now, latest.createdAt), updatedBy: author, data });
      return;
    }
    const entry = { ...scope, _id: newId(), versionId: doc._id, cmsMode: doc.cmsMode ?? '', action, createdAt: now, startedAt: now, updatedBy: author, data, pool };
    await tx.history.append(entry);
    await tx.history.prune(scope, { before: now - retention.maxAgeDays * dayMs, pool, keep: keptIn(pool, retention) });
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
  retentionOf(type: SanitizedPieceType): HistoryRetention {
    const { limits } = this.#config;
    const own = type.options.history;
    return {
      maxEntries: own.maxEntries ?? limits.historyMaxEntries,
      maxPublishEntries: own.maxPublishEntries ?? limits.historyMaxPublishEntries,
      maxAgeDays: own.maxAgeDays ?? limits.historyMaxAgeDays,
    };
  }

  /**
   * What a version keeps in its entries: all but its secrets (password hashes: a restore never
   * brings one back), the draft's share key, a secret that would outlive its unsharing there,
   * and its schedules, which the schedule index holds and an old entry would show as still
   * pending. None is content: a restore never brings them back either.
   */
  #dataOf(type: SanitizedPieceType, doc: StoredDocument): Record<string, unknown> {
    const data = this.#values.withoutSecrets(type, doc);
    for (const property of [shareKeyProperty, ...Object.values(scheduleProperties)]) delete data[property];
    return data;
  }

  #merges(latest: HistoryHead, save: { versionId: string; author: { _id: string | null; username: string | null }; pool: string; now: number }): boolean {
    const windowMs = this.#config.limits.historyMergeSeconds * 1000;
    return (
      latest.action === 'update' &&
      latest.pool === save.pool &&
      latest.versionId === save.versionId &&
      latest.updatedBy._id === save.author._id &&
      latest.updatedBy.username === save.author.username &&
      save.now - latest.startedAt < windowMs
    );
  }
}
