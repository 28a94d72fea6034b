import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { StorageAdapter, WebhookDelivery, WebhookDeliveryStatus } from '../../storage/storage-adapter.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { refusal } from '../../core/refusal.js';
import { audit, type AuditedBy } from '../../core/audit.js';

const statuses: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];
export const defaultDeliveriesPerPage = 20;
export const maxDeliveriesPerPage = 100;

type Output = Record<string, unknown>;

/**
 * What an admin sees of the webhooks: the configured endpoints with their deliveries counted by
 * status, the recent deliveries (newest first, a page at a time), and a retry of a failed one.
 * Everyone else is refused, before anything is read.
 */
export class WebhookAdmin {
  readonly #config: AppConfig;
  readonly #storage: StorageAdapter;
  readonly #retried: () => void;

  constructor(deps: { config: AppConfig; storage: StorageAdapter; onRetry?: () => void }) {
    this.#config = deps.config;
    this.#storage = deps.storage;
    this.#retried = deps.onRetry ?? (() => undefined);
  }

  async endpoints(principal: Principal): Promise<{ results: Output[] }> {
    requireAdmin(principal);
    const counts = await this.#storage.webhooks.counts();
    const results = this.#config.webhooks.map((webhook) => {
      const deliveries = { pending: 0, delivered: 0, failed: 0 };
      for (const row of counts) if (row.endpoint === webhook.name) deliveries[row.status] = Number(row.count);
      // Never the secret.
      return { name: webhook.name, url: webhook.url, types: webhook.types, events: webhook.events, deliveries };
    });
    return { results };
  }

  /**
   * `status`, `endpoint`: only those; `before` (or `cursor`, as every list takes it): the
   * deliveries older than that id (the `next` / `nextCursor` of the page before, a keyset: ids
   * only grow); `perPage`: 1 to 100.
   */
  async deliveries(principal: Principal, query: Readonly<Record<string, unknown>>): Promise<{ results: Output[]; next: number | null; nextCursor: string | null }> {
    requireAdmin(principal);
    const status = optionalString(query.status, 'status');
    if (status !== undefined && !(statuses as readonly string[]).includes(status)) {
      throw new InvalidRequestError(`status must be one of ${statuses.join(', ')}`, { path: 'status' });
    }
    const endpoint = optionalString(query.endpoint, 'endpoint');
    if (query.before !== undefined && query.cursor !== undefined) throw new InvalidRequestError('cursor and before say the same: send one', { path: 'cursor' });
    const beforeId = optionalInteger(query.cursor ?? query.before, query.cursor === undefined ? 'before' : 'cursor', Number.MAX_SAFE_INTEGER);
    const limit = optionalInteger(query.perPage, 'perPage', maxDeliveriesPerPage) ?? defaultDeliveriesPerPage;
    const rows = await this.#storage.webhooks.list({ status: status as WebhookDeliveryStatus | undefined, endpoint, beforeId, limit });
    const next = rows.length === limit ? rows.at(-1)!.id : null;
    return { results: rows.map(deliveryOutput), next, nextCursor: next === null ? null : String(next) };
  }

  /** A failed delivery is tried again from the start, soon; 409 for one that is not failed. */
  async retry(by: AuditedBy, rawId: string): Promise<Output> {
    requireAdmin(by.principal);
    const id = /^[1-9]\d{0,15}$/.test(rawId) ? Number(rawId) : null;
    if (id === null) throw new NotFoundError();
    const isRetried = await this.#storage.transaction(async (tx) => {
      const done = await tx.webhooks.retry(id, Date.now());
      if (done) await audit(tx, by, { action: 'webhook.retry', ids: [String(id)] });
      return done;
    });
    if (!isRetried) {
      const [found] = await this.#storage.webhooks.list({ beforeId: id + 1, limit: 1 });
      if (found?.id !== id) throw new NotFoundError();
      throw new ConflictError(`Only a failed delivery can be retried; this one is ${found.status}`);
    }
    this.#retried();
    const [retried] = await this.#storage.webhooks.list({ beforeId: id + 1, limit: 1 });
    return deliveryOutput(retried!);
  }
}

function requireAdmin(principal: Principal): void {
  if (principal.role !== 'admin') throw refusal(principal, 'admin', 'Seeing and retrying webhook deliveries');
}

function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new InvalidRequestError(`${path} must be a non-empty string`, { path });
  return value;
}

function optionalInteger(value: unknown, path: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max)) throw new InvalidRequestError(`${path} must be an integer from 1 to ${max}`, { path });
  return number;
}

/** A delivery as the admin endpoint shows it: times as ISO strings, the body left out. */
function deliveryOutput(delivery: WebhookDelivery): Output {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    endpoint: delivery.endpoint,
    event: delivery.event,
    type: delivery.type,
    cmsDocId: delivery.docId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    nextAttemptAt: delivery.status === 'pending' ? new Date(delivery.nextAttemptAt).toISOString() : null,
    createdAt: new Date(delivery.createdAt).toISOString(),
    updatedAt: new Date(delivery.updatedAt).toISOString(),
  };
}
