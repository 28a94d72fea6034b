import type { AppConfig } from '../app-config.js';
import type { ChangeEntry, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { purgeEventName, type ChangeEventName, type ReviewEventName } from '../../config/webhooks-config.js';
import type { DocumentPresenter } from './present.js';
import { pieceTypeOf, type IdempotentRequest } from './caller.js';
import { reviewScheduledPublish } from './schedule-review.js';
import type { HistoryAction, HistoryRecorder } from './history-recorder.js';
import { audit, type AuditEntry, type AuditedBy, type DocumentAuditVerb } from '../../core/audit.js';
import { anonymous, userTypeName, type Principal } from '../../core/principal.js';
import { changeOf, eventAuditVerbs, deliveriesOf, purgeDeliveriesOf, purgeTagsOf, webhookReader, type Change, type ChangeSubscriptions } from './change-events.js';
import { shareKeyProperty } from './draft-sharing.js';
import { composeId } from '../../core/ids.js';
import { claimKey } from './idempotency-claim.js';
import type { PriorVisibility } from './prior-visibility.js';

/** The audit verb of each history action: one spelling per action, the audit trail's own. */
const historyAuditVerbs: Readonly<Record<HistoryAction, DocumentAuditVerb>> = {
  ...eventAuditVerbs,
  'revert-draft-to-published': 'revert',
  'revert-published-to-previous': 'revertPublished',
  localize: 'localize',
  'restore-history': 'restoreHistory',
  // Never recorded through `recorded`: `recordReview` writes their own audit actions.
  'review.stage': 'patch',
  'review.comment': 'patch',
};

/**
 * The audit record of a change: `document.<verb>`, the document set and the version, its locale
 * and mode; for a user, the role the change left (role changes are user updates).
 */
function auditEntryOf(change: Change, doc: StoredDocument | null): AuditEntry {
  const ids = change.id === change.docId ? [change.docId] : [change.docId, change.id];
  const detail: Record<string, unknown> = { locale: change.locale, mode: change.mode };
  if (change.type === userTypeName && doc) detail.role = doc.role ?? null;
  return { action: `document.${change.action}`, type: change.type, ids, detail };
}

/**
 * The change log's entry of a change (`storage/interface/change-log.ts`): a localize is told as
 * one, the other changes by their event. `removed`: the version a delete removed, whose
 * visibility says who may hear of it.
 */
function changeEntryOf(change: Change, doc: StoredDocument | null, removed?: StoredDocument, priorVisibility?: (id: string) => string | undefined): ChangeEntry {
  const version = doc ?? removed;
  // An unpublish is recorded on the draft it leaves; what it removed is the published version,
  // which those who may read published versions only must hear of.
  const unpublished = change.event === 'unpublish' && change.mode === 'draft' && change.locale !== null;
  const id = unpublished ? composeId(change.docId, change.locale!, 'published') : change.id;
  const visibility = typeof version?.visibility === 'string' ? version.visibility : 'public';
  const before = priorVisibility?.(id);
  return {
    ...(before !== undefined && before !== visibility ? { visibilityBefore: before } : {}),
    action: change.action === 'localize' ? 'localize' : change.event,
    type: change.type,
    id,
    docId: change.docId,
    locale: change.locale,
    mode: unpublished ? 'published' : change.mode,
    visibility,
    archived: version?.archived === true,
    updatedAt: typeof doc?.updatedAt === 'string' ? doc.updatedAt : null,
    updatedBy: doc?.updatedBy ?? null,
    at: new Date().toISOString(),
  };
}

/**
 * The change log's entry of a version stored as it was, by no request (`cms import`): its
 * insert, so a stream or a sync that read the store before finds it among the changes.
 */
export function storedEntryOf(doc: StoredDocument): ChangeEntry {
  return changeEntryOf(changeOf('insert', doc, { principal: anonymous }), doc);
}

/**
 * Writes the events of document changes into the change log, the webhook outbox and the audit trail, in each
 * change's own transaction, and remembers which open transactions wrote any (their commit wakes the sender).
 */
export class ChangeRecorder {
  readonly #config: AppConfig;
  readonly #subscriptions: ChangeSubscriptions;
  readonly #presenter: DocumentPresenter;
  readonly #history: HistoryRecorder;
  readonly #prior: PriorVisibility;
  readonly #wrote = new WeakSet<StorageSession>();
  readonly #logged = new WeakSet<StorageSession>();
  /** The open transactions that claimed their write's Idempotency-Key: a write claims it once, for the first version it records. */
  readonly #claimed = new WeakSet<StorageSession>();
  /** The CDN tags each open transaction's purge events named already: a write purges each tag once. */
  readonly #purged = new WeakMap<StorageSession, Set<string>>();

  constructor(deps: { config: AppConfig; subscriptions: ChangeSubscriptions; presenter: DocumentPresenter; history: HistoryRecorder; prior: PriorVisibility }) {
    this.#config = deps.config;
    this.#subscriptions = deps.subscriptions;
    this.#presenter = deps.presenter;
    this.#history = deps.history;
    this.#prior = deps.prior;
  }

  /**
   * Writes the event of one change for each endpoint told of it; writes nothing at all when
   * none is. `doc` is the version as the change left it (null after a delete); its body is
   * built now, as an admin API key would read it, without the draft's share key: it would open
   * the draft to every receiver, and sit in the outbox's rows.
   */
  async record(session: StorageSession, change: Change, doc: StoredDocument | null, removed?: StoredDocument): Promise<void> {
    await audit(session, change, auditEntryOf(change, doc));
    await session.changes.append([changeEntryOf(change, doc, removed, (id) => this.#prior.of(session, id))]);
    this.#logged.add(session);
    await this.#recordPurge(session, change);
    const endpoints = this.#subscriptions.endpointsFor(change.type, change.event);
    if (endpoints.length === 0) return;
    const type = pieceTypeOf(this.#config, change.type);
    const document = doc && (await this.#presenter.present([doc], { type, principal: webhookReader, withRelationships: false }))[0]!;
    if (document) delete document[shareKeyProperty];
    await session.webhooks.enqueue(deliveriesOf(change, endpoints, document), Date.now());
    this.#wrote.add(session);
  }

  /** The `cache.purge` event of a change, for the endpoints told of it, with the tags this write did not purge yet. */
  async #recordPurge(session: StorageSession, change: Change): Promise<void> {
    const endpoints = this.#subscriptions.endpointsFor(change.type, purgeEventName);
    if (endpoints.length === 0) return;
    let purged = this.#purged.get(session);
    if (!purged) this.#purged.set(session, (purged = new Set()));
    const { autopublish } = pieceTypeOf(this.#config, change.type).options;
    const tags = purgeTagsOf(change, autopublish).filter((tag) => !purged.has(tag));
    if (tags.length === 0) return;
    for (const tag of tags) purged.add(tag);
    await session.webhooks.enqueue(purgeDeliveriesOf(change, endpoints, tags), Date.now());
    this.#wrote.add(session);
  }

  /**
   * `record` for a change that left `doc` as it is now, and its history entry; answers `doc`.
   * `action`: the history entry's verb, the event's name unless the change is finer than its
   * event (a revert, a localize); `auditAction`: the audit record's, `action` unless it says more
   * (an update made by PATCH or PUT). A change made by the system (a scheduled publish) calls
   * this as an operation does. A change to a draft whose publish is scheduled marks or clears
   * the schedule's review (`schedule-review.ts`). A write sent with an `Idempotency-Key` claims
   * it here, in its transaction, for the first version it records: the one it answers (a PATCH
   * with `_publish` records the draft first, then the published version).
   */
  async recorded(
    session: StorageSession,
    event: Exclude<ChangeEventName, 'delete'>,
    doc: StoredDocument,
    by: AuditedBy & { readonly idempotency?: IdempotentRequest },
    action: HistoryAction = event,
    auditAction?: DocumentAuditVerb,
  ): Promise<StoredDocument> {
    if (by.idempotency && !this.#claimed.has(session)) {
      this.#claimed.add(session);
      await claimKey(session, by.idempotency, doc._id, this.#config.limits.idempotencyKeyTtl);
    }
    await this.recordHistory(session, action, doc, by.principal);
    await this.record(session, changeOf(event, doc, by, auditAction ?? historyAuditVerbs[action]), doc);
    await reviewScheduledPublish(session, { event, doc, type: pieceTypeOf(this.#config, doc.type), principal: by.principal });
    return doc;
  }

  /**
   * A review event of a draft (review.ts): its history entry (the draft as it is now, with
   * `detail` as `cmsReviewEvent`), its audit record (`review.stage`, `review.comment`) and its
   * webhook event, for endpoints that list it. A stage move changed the draft: the change log
   * hears of it as an update.
   */
  async recordReview(session: StorageSession, event: ReviewEventName, doc: StoredDocument, by: AuditedBy, detail: Record<string, unknown>): Promise<void> {
    await this.recordHistory(session, event, { ...doc, cmsReviewEvent: detail }, by.principal);
    const change = changeOf('update', doc, by);
    await audit(session, by, { action: event, type: change.type, ids: [change.docId, change.id], detail: { locale: change.locale, ...detail } });
    if (event === 'review.stage') {
      await session.changes.append([changeEntryOf(change, doc, undefined, (id) => this.#prior.of(session, id))]);
      this.#logged.add(session);
      await this.#recordPurge(session, change);
    }
    const endpoints = this.#subscriptions.endpointsFor(change.type, event);
    if (endpoints.length === 0) return;
    const type = pieceTypeOf(this.#config, change.type);
    const document = (await this.#presenter.present([doc], { type, principal: webhookReader, withRelationships: false }))[0]!;
    delete document[shareKeyProperty];
    await session.webhooks.enqueue(deliveriesOf({ ...change, event }, endpoints, { ...document, cmsReviewEvent: detail }), Date.now());
    this.#wrote.add(session);
  }

  /** The history entry alone, of a change whose event names another version (a published version deleted: its draft unpublished). */
  async recordHistory(session: StorageSession, action: HistoryAction, doc: StoredDocument, principal: Principal): Promise<void> {
    await this.#history.record(session, action, doc, principal);
  }

  /** Whether the transaction of `session` logged changes (the change stream's). */
  loggedIn(session: StorageSession): boolean {
    return this.#logged.has(session);
  }

  /** Whether the transaction of `session` wrote change events. */
  wroteIn(session: StorageSession): boolean {
    return this.#wrote.has(session);
  }
}
