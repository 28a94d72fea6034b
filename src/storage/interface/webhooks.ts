export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One change event to deliver to one endpoint, as the content layer writes it with the change. */
export interface NewWebhookDelivery {
  /** The event's id, shared by its deliveries to every endpoint (receivers deduplicate on it). */
  readonly eventId: string;
  readonly endpoint: string;
  /** The document the event is about: its deliveries to one endpoint go out in the order written. */
  readonly docId: string;
  readonly event: string;
  readonly type: string;
  /** The request body, sent (and signed) as it is. */
  readonly payload: string;
}

/** A delivery as kept: what was asked, and how its attempts went. Times are ms since the epoch. */
export interface WebhookDelivery extends NewWebhookDelivery {
  /** Grows with each delivery written: later writes of a document have larger ids. */
  readonly id: number;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  /** HTTP status of the last attempt; null when it got none (refused, timed out) or none was made. */
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The outcome of one attempt, recorded by the process that claimed the delivery. */
export interface WebhookAttempt {
  readonly id: number;
  /** The claim's token: an attempt whose lease ran out (another process took over) records nothing. */
  readonly token: string;
  /** `pending`: to be tried again at `nextAttemptAt`. */
  readonly status: WebhookDeliveryStatus;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly nextAttemptAt: number;
  readonly now: number;
}

/** What a sender asks of the outbox in one claim. */
export interface WebhookClaim {
  readonly endpoints: readonly string[];
  readonly events: readonly string[];
  readonly unordered?: boolean;
  readonly now: number;
  readonly leaseMs: number;
  readonly token: string;
  readonly limit: number;
}

/**
 * The transactional outbox of webhook deliveries. Writes made in a transaction commit with the
 * change they tell of, or not at all; senders on any number of processes share it by leases.
 */
export interface WebhookOutbox {
  /** Adds pending deliveries, due at once, in the order given. */
  enqueue(deliveries: readonly NewWebhookDelivery[], now: number): Promise<void>;
  /**
   * Leases up to `limit` due pending deliveries of these endpoints and events to the caller until
   * `now + leaseMs`, oldest first, and answers them. A delivery is due once its `nextAttemptAt`
   * has come, no lease on it holds, and no earlier delivery of the same document to the same
   * endpoint is still pending (with `unordered`: none of another event than those claimed, for
   * events whose order among themselves does not matter). Atomic across processes: a delivery is
   * leased to one claimer at a time.
   */
  claim(args: WebhookClaim): Promise<WebhookDelivery[]>;
  /** Records an attempt and ends the lease; false when the lease was no longer the caller's. */
  record(attempt: WebhookAttempt): Promise<boolean>;
  /** Deliveries, newest first, with ids below `beforeId` (all: undefined). */
  list(args: { status?: WebhookDeliveryStatus; endpoint?: string; beforeId?: number; limit: number }): Promise<WebhookDelivery[]>;
  /** How many deliveries each endpoint has in each status (only those it has). */
  counts(): Promise<{ endpoint: string; status: WebhookDeliveryStatus; count: number }[]>;
  /** A failed delivery becomes pending again, due at `now`, its attempts counted anew; false when it is not failed. */
  retry(id: number, now: number): Promise<boolean>;
  /** Removes up to `limit` delivered and failed deliveries last changed before `before`; answers how many. */
  prune(before: number, limit: number): Promise<number>;
}
