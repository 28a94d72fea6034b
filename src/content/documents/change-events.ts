import { newId, type Mode } from '../../core/ids.js';
import type { Principal } from '../../core/principal.js';
import { purgeEventName, type ChangeEventName, type WebhookEndpointConfig, type WebhookEventName } from '../../config/webhooks-config.js';
import { cdnTagOf, documentCdnTag, modeGenerationKey } from '../generation-keys.js';
import type { AuditedBy, DocumentAuditVerb, RequestOrigin, ScheduledRun } from '../../core/audit.js';
import type { NewWebhookDelivery, StoredDocument } from '../../storage/storage-adapter.js';

/** The document a change event is about, and what it says of it. */
export interface Change {
  readonly event: ChangeEventName;
  readonly type: string;
  readonly docId: string;
  /** The version the change was asked of (`<docId>:<locale>:<mode>`, or the docId of a non-localized type). */
  readonly id: string;
  readonly locale: string | null;
  readonly mode: string | null;
  readonly principal: Principal;
  /** Where the request came from, for the audit trail. */
  readonly origin?: RequestOrigin;
  /** The schedule that made the change, for the audit trail. */
  readonly schedule?: ScheduledRun;
  /** The audit action's verb when it says more than the event (`revert`, `localize`, `patch`…). */
  /** The audit action's verb: the event's own, or one that says more (`revert`, `localize`, `replace`…). */
  readonly action: DocumentAuditVerb;
}

/** How webhooks read documents: as an admin API key reads them (secrets removed, nothing projected away). */
export const webhookReader: Principal = Object.freeze({ kind: 'apiKey', role: 'admin', userId: null, title: null, username: null });

/**
 * Which configured endpoints are told of which changes, worked out once per type and event, and
 * the outbox rows of one change: one per endpoint, all with the same event id and body.
 */
export class ChangeSubscriptions {
  readonly #webhooks: readonly WebhookEndpointConfig[];
  readonly #endpoints = new Map<string, readonly string[]>();

  constructor(webhooks: readonly WebhookEndpointConfig[]) {
    this.#webhooks = webhooks;
  }

  /** The names of the endpoints told of this event of this type (most often none). */
  endpointsFor(type: string, event: WebhookEventName): readonly string[] {
    const key = `${event} ${type}`;
    let names = this.#endpoints.get(key);
    if (names === undefined) {
      names = this.#webhooks
        .filter((webhook) => (webhook.types === '*' || webhook.types.includes(type)) && webhook.events.includes(event))
        .map((webhook) => webhook.name);
      this.#endpoints.set(key, names);
    }
    return names;
  }
}

/**
 * The outbox rows of one change, to `endpoints`. The body is fixed now, in the change's
 * transaction: a receiver learns the document as this change left it, however late it is sent.
 * `document` is the version after the change (none after a delete).
 */
export function deliveriesOf(change: Omit<Change, 'event'> & { readonly event: WebhookEventName }, endpoints: readonly string[], document: Record<string, unknown> | null): NewWebhookDelivery[] {
  const eventId = newId();
  const { principal } = change;
  const payload = JSON.stringify({
    id: eventId,
    event: change.event,
    type: change.type,
    cmsDocId: change.docId,
    _id: change.id,
    locale: change.locale,
    mode: change.mode,
    at: new Date().toISOString(),
    // Who made the change, never how they proved it (no key, no token).
    by: { kind: principal.kind, role: principal.role, userId: principal.userId },
    document,
  });
  return endpoints.map((endpoint) => ({ eventId, endpoint, docId: change.docId, event: change.event, type: change.type, payload }));
}

/** The audit verb of a change that names none finer than its event: an update is a PATCH unless PUT says `replace`. */
export const eventAuditVerbs: Readonly<Record<ChangeEventName, DocumentAuditVerb>> = {
  insert: 'insert',
  update: 'patch',
  publish: 'publish',
  unpublish: 'unpublish',
  archive: 'archive',
  restore: 'restore',
  delete: 'delete',
};

/** The target of a change made to a stored version. */
export function changeOf(event: ChangeEventName, doc: StoredDocument, by: AuditedBy, action: DocumentAuditVerb = eventAuditVerbs[event]): Change {
  return {
    event,
    type: doc.type,
    docId: doc.cmsDocId,
    id: doc._id,
    locale: doc.cmsLocale ? doc.cmsLocale.split(':')[0]! : null,
    mode: doc.cmsMode ?? null,
    principal: by.principal,
    origin: by.origin,
    schedule: by.schedule,
    action,
  };
}

/**
 * The CDN tags a change invalidates: those of the generation keys its write counts up (the
 * versions it writes, by mode), so that a CDN drops what this server's cache drops. An update
 * writes the version it names (a draft save: `article:draft`, which no shared answer carries);
 * the other events write every mode of the document (a publish, the draft's `modified` too).
 * A change to a published version (or a type without modes) also names `doc:<cmsDocId>`.
 * A draft's update of an autopublishing type (`@cms/image`, `@cms/file`) published it too: it
 * names both modes, as the other events do.
 */
export function purgeTagsOf(change: Change, autopublish: boolean): string[] {
  if (change.mode === null) return [cdnTagOf(modeGenerationKey(change.type, null)), documentCdnTag(change.docId)];
  const modes = change.event === 'update' && !autopublish ? [change.mode] : ['draft', 'published'];
  const tags = modes.map((mode) => cdnTagOf(modeGenerationKey(change.type, mode as Mode)));
  return modes.includes('published') ? [...tags, documentCdnTag(change.docId)] : tags;
}

/** The outbox rows of a purge, to `endpoints`: the tags, space- and comma-separated as CDNs take them. */
export function purgeDeliveriesOf(change: Change, endpoints: readonly string[], tags: readonly string[]): NewWebhookDelivery[] {
  const eventId = newId();
  const payload = JSON.stringify({
    id: eventId,
    event: purgeEventName,
    type: change.type,
    cmsDocId: change.docId,
    cause: change.event,
    at: new Date().toISOString(),
    tags,
    surrogateKey: tags.join(' '),
    cacheTag: tags.join(','),
  });
  return endpoints.map((endpoint) => ({ eventId, endpoint, docId: change.docId, event: purgeEventName, type: change.type, payload }));
}
