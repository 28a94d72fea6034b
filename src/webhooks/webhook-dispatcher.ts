import { randomUUID } from 'node:crypto';
import type { Limits } from '../config/limits.js';
import { changeEventNames, purgeEventName, reviewEventNames, type WebhookEndpointConfig } from '../config/webhooks-config.js';
import type { StorageAdapter, WebhookDelivery, WebhookDeliveryStatus } from '../storage/storage-adapter.js';
import { signatureOf } from './signature.js';
import { retryDelay } from './retry-delay.js';
import { purgeRequestsOf, type PurgeRequest } from './purge-requests.js';

export interface DispatcherLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What one attempt came to. */
interface Outcome {
  readonly statusCode: number | null;
  readonly error: string | null;
}

// Finished deliveries are pruned at most this often, a bounded batch at a time.
const pruneEveryMs = 60_000;
const pruneBatch = 1_000;
const maxErrorLength = 500;

/**
 * Sends the outbox's deliveries to the configured endpoints, from every server process of the
 * store alike. Each round leases due deliveries (`WebhookOutbox.claim`: never one leased to
 * another process, never a document's event while an earlier one to the same endpoint is
 * pending), POSTs them at once, and records each outcome. A round starts when this process
 * committed events (`wake`), when a retry falls due, and every poll interval for the events of
 * other processes. A process that stops or dies mid-attempt leaves its lease to run out; another
 * round, here or elsewhere, sends the delivery again: delivery is at least once.
 * `cache.purge` events go in batches: a round leases every due one (up to webhookPurgeBatch,
 * in any order among themselves) and tells each endpoint of all their tags at once, in requests
 * of at most its `maxPurgeTags`, at most once per webhookPurgeInterval; the events of a burst of
 * writes gather meanwhile, so a CDN gets a few calls, not one per write.
 */
export class WebhookDispatcher {
  readonly #storage: StorageAdapter;
  readonly #endpoints: ReadonlyMap<string, WebhookEndpointConfig>;
  readonly #limits: Limits;
  readonly #log: DispatcherLog;
  readonly #stopping = new AbortController();
  #round: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #timerDue = Infinity;
  #nextPrune = 0;
  readonly #purgeEndpoints: readonly string[];
  #nextPurge = 0;

  constructor(deps: { storage: StorageAdapter; endpoints: readonly WebhookEndpointConfig[]; limits: Limits; log: DispatcherLog }) {
    this.#storage = deps.storage;
    this.#endpoints = new Map(deps.endpoints.map((endpoint) => [endpoint.name, endpoint]));
    this.#purgeEndpoints = deps.endpoints.filter((endpoint) => endpoint.events.includes(purgeEventName)).map((endpoint) => endpoint.name);
    this.#limits = deps.limits;
    this.#log = deps.log;
  }

  /** Starts the rounds: one now (events a stopped process left), then as they fall due. */
  start(): void {
    if (this.#endpoints.size > 0) this.wake();
  }

  /** Runs a round soon: events were committed. A round under way runs another after it. */
  wake(): void {
    if (this.#endpoints.size === 0 || this.#stopping.signal.aborted) return;
    if (this.#round) {
      this.#again = true;
      return;
    }
    this.#round = this.#rounds().finally(() => {
      this.#round = null;
      // Woken after the last round looked: look again.
      if (this.#again) this.wake();
    });
  }

  /** Stops: attempts under way are abandoned (their leases run out), no round starts any more. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#clearTimer();
    await this.#round;
  }

  async #rounds(): Promise<void> {
    // Not on the caller's turn: the write that woke us answers first.
    await new Promise((resolve) => setImmediate(resolve));
    do {
      this.#again = false;
      try {
        const claimed = await this.#runRound();
        // What this round sent may have let later events of the same documents through.
        if (claimed > 0) this.#again = true;
      } catch (error) {
        if (this.#stopping.signal.aborted) return;
        this.#log.error({ err: error }, 'a webhook round failed; the next one tries again');
      }
    } while (this.#again && !this.#stopping.signal.aborted);
    this.#scheduleAt(Date.now() + this.#limits.webhookPollInterval);
  }

  /** One round: lease, send, record. Answers how many deliveries it leased. */
  async #runRound(): Promise<number> {
    const now = Date.now();
    await this.#prune(now);
    const token = randomUUID();
    // Longer than an attempt can take, with room to record it.
    const lease = { now, token, leaseMs: 2 * this.#limits.webhookTimeout + 1_000 };
    const purges = await this.#claimPurges(lease);
    const claimed = await this.#storage.webhooks.claim({ ...lease, endpoints: [...this.#endpoints.keys()], events: [...changeEventNames, ...reviewEventNames], limit: this.#limits.webhookConcurrency });
    // Each records its own outcome; one that cannot (the store failing) is sent again once its lease runs out.
    const outcomes = await Promise.allSettled([
      ...claimed.map(async (delivery) => this.#record(delivery, token, await this.#attempt(this.#endpoints.get(delivery.endpoint)!, delivery))),
      ...[...groupByEndpoint(purges)].map(([name, deliveries]) => this.#purge(this.#endpoints.get(name)!, deliveries, token)),
    ]);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') this.#log.error({ err: outcome.reason }, 'a webhook attempt could not be recorded');
    }
    return claimed.length + purges.length;
  }

  /** The due purge events, unless this process sent some less than webhookPurgeInterval ago: then a round is set for when it may. */
  async #claimPurges(lease: { now: number; token: string; leaseMs: number }): Promise<WebhookDelivery[]> {
    if (this.#purgeEndpoints.length === 0) return [];
    if (lease.now < this.#nextPurge) {
      this.#scheduleAt(this.#nextPurge);
      return [];
    }
    const limit = this.#limits.webhookPurgeBatch;
    const purges = await this.#storage.webhooks.claim({ ...lease, endpoints: this.#purgeEndpoints, events: [purgeEventName], unordered: true, limit });
    if (purges.length > 0) this.#nextPurge = lease.now + this.#limits.webhookPurgeInterval;
    return purges;
  }

  /**
   * Tells one endpoint of these purges, its requests at once (so the batch takes one attempt's
   * time, within the lease); each delivery's outcome is the first failed request's, or success.
   */
  async #purge(endpoint: WebhookEndpointConfig, deliveries: readonly WebhookDelivery[], token: string): Promise<void> {
    const requests = purgeRequestsOf(deliveries, endpoint.maxPurgeTags, new Date());
    const outcomes = await Promise.all(requests.map((request) => this.#attempt(endpoint, request)));
    const outcome = outcomes.find((one) => !succeeded(one)) ?? outcomes[0]!;
    await Promise.all(deliveries.map((delivery) => this.#record(delivery, token, outcome)));
  }

  async #record(delivery: WebhookDelivery, token: string, outcome: Outcome): Promise<void> {
    const endpoint = this.#endpoints.get(delivery.endpoint)!;
    // Abandoned: the lease runs out and the delivery is sent again, as after a crash.
    if (this.#stopping.signal.aborted) return;
    const now = Date.now();
    const attempts = delivery.attempts + 1;
    const delivered = succeeded(outcome);
    const tooOld = now - delivery.createdAt >= this.#limits.webhookMaxAgeSeconds * 1000;
    const status: WebhookDeliveryStatus = delivered ? 'delivered' : attempts >= this.#limits.webhookAttempts || tooOld ? 'failed' : 'pending';
    const delay = status === 'pending' ? retryDelay(attempts, { first: this.#limits.webhookRetryDelay, max: this.#limits.webhookRetryMaxDelay }) : 0;
    const recorded = await this.#storage.webhooks.record({ id: delivery.id, token, status, ...outcome, nextAttemptAt: now + delay, now });
    if (status === 'pending' && recorded) this.#scheduleAt(now + delay);
    if (status === 'failed') {
      this.#log.warn({ delivery: delivery.id, endpoint: endpoint.name, event: delivery.eventId, attempts, ...outcome }, 'a webhook delivery failed for good');
    }
  }

  /** One signed POST; any answer but a 2xx, a timeout or a network error is a failure. */
  async #attempt(endpoint: WebhookEndpointConfig, sent: WebhookDelivery | PurgeRequest): Promise<Outcome> {
    const { id, event, payload } = 'eventId' in sent ? { id: sent.eventId, event: sent.event, payload: sent.payload } : { ...sent, event: purgeEventName };
    const timestamp = Math.floor(Date.now() / 1000);
    const timeout = this.#limits.webhookTimeout;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cms-webhooks/1',
          'cms-webhook-id': id,
          'cms-webhook-event': event,
          'cms-webhook-timestamp': String(timestamp),
          'cms-webhook-signature': signatureOf(endpoint.secret, timestamp, payload),
        },
        body: payload,
        // A redirect is a failure: following it would send the event where it was not configured to go.
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(timeout), this.#stopping.signal]),
      });
      // The answer's body is not read: only the status counts.
      await response.body?.cancel().catch(() => undefined);
      return { statusCode: response.status, error: response.ok ? null : `answered ${response.status}` };
    } catch (error) {
      return { statusCode: null, error: describe(error, timeout) };
    }
  }

  async #prune(now: number): Promise<void> {
    if (now < this.#nextPrune) return;
    this.#nextPrune = now + pruneEveryMs;
    await this.#storage.webhooks.prune(now - this.#limits.webhookKeepSeconds * 1000, pruneBatch);
  }

  /** Runs a round at `time`, unless one is set for earlier already. */
  #scheduleAt(time: number): void {
    if (this.#stopping.signal.aborted || time >= this.#timerDue) return;
    this.#clearTimer();
    this.#timerDue = time;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerDue = Infinity;
      this.wake();
    }, Math.max(0, time - Date.now()));
    // Pending retries never keep a process alive that has nothing else to do.
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerDue = Infinity;
  }
}

function succeeded(outcome: Outcome): boolean {
  return outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
}

function groupByEndpoint(deliveries: readonly WebhookDelivery[]): Map<string, WebhookDelivery[]> {
  const groups = new Map<string, WebhookDelivery[]>();
  for (const delivery of deliveries) {
    const group = groups.get(delivery.endpoint);
    if (group) group.push(delivery);
    else groups.set(delivery.endpoint, [delivery]);
  }
  return groups;
}

/** Why an attempt got no answer, in a few words for the admin endpoint. */
function describe(error: unknown, timeout: number): string {
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError') return `no answer within ${timeout} ms`;
  const cause = failure.cause?.code ?? failure.cause?.message;
  return `${failure.message ?? String(error)}${cause ? ` (${cause})` : ''}`.slice(0, maxErrorLength);
}
