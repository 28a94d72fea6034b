import type { ChangeLogStore, LoggedChange } from '../../storage/storage-adapter.js';

/** What a stream is handed: the changes after its position, in order, or word that it must resynchronise. */
export interface ChangeListener {
  /** The piece types whose changes it may be handed: a change of another type costs it nothing. */
  readonly types: ReadonlySet<string>;
  changes(changes: readonly LoggedChange[]): void;
  /** Changes it asked for were pruned (or it named a position the log never gave): it must read afresh. */
  resync(latest: number): void;
}

interface Subscriber {
  readonly listener: ChangeListener;
  /** The last seq it was handed. */
  position: number;
  /** Reading its own way to the feed's cursor: live changes are left to that read. */
  catchingUp: boolean;
}

const pageSize = 500;

/**
 * The change log as this process's streams hear it: one reader for all of them. While any stream
 * is open it reads the log every `pollMs` (what other processes committed) and at once when this
 * process committed a change (`wake`), and hands each new change to every stream; none is read
 * while none is open. A stream that starts behind (a `Last-Event-ID`) reads its own way up to the
 * feed first, then joins it. Works the same on every store and behind a transaction pooler: it is
 * reads of a table, nothing held between them.
 */
export class ChangeFeed {
  readonly #log: ChangeLogStore;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #subscribers = new Set<Subscriber>();
  /** The subscribers by the types they may be handed. */
  readonly #byType = new Map<string, Set<Subscriber>>();
  /** The last seq read; null until the first subscriber asked where the log stands. */
  #cursor: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(log: ChangeLogStore, options: { pollMs: number; onError: (error: unknown) => void }) {
    this.#log = log;
    this.#pollMs = options.pollMs;
    this.#onError = options.onError;
  }

  /**
   * Starts handing changes to `listener`: those after `after` (a Last-Event-ID), or from now on.
   * Answers the position it starts from and how to stop.
   */
  async subscribe(listener: ChangeListener, after: number | null): Promise<{ position: number; stop: () => void }> {
    const [{ latest }, pruned] = await Promise.all([this.#log.bounds(), this.#log.prunedThrough()]);
    // From where the log stands now: a cursor kept from streams closed since would replay the past.
    if (this.#cursor === null || this.#subscribers.size === 0) this.#cursor = latest;
    // Not from the feed's cursor, which may not have read yet what committed before this stream opened.
    const subscriber: Subscriber = { listener, position: Math.max(this.#cursor, latest), catchingUp: false };
    const stop = () => {
      this.#subscribers.delete(subscriber);
      for (const type of listener.types) {
        const ofType = this.#byType.get(type);
        ofType?.delete(subscriber);
        if (ofType?.size === 0) this.#byType.delete(type);
      }
      if (this.#subscribers.size === 0) this.#stopTimer();
    };
    this.#subscribers.add(subscriber);
    for (const type of listener.types) {
      let ofType = this.#byType.get(type);
      if (!ofType) this.#byType.set(type, (ofType = new Set()));
      ofType.add(subscriber);
    }
    this.#startTimer();
    if (after !== null && after !== subscriber.position) {
      // Gone from the log (pruned), or never given: nothing after it can be told in order. (Not the
      // oldest seq kept: on PostgreSQL a rolled back write leaves a gap in the sequence, no loss.)
      if (after > latest || after < pruned) listener.resync(subscriber.position);
      else {
        subscriber.position = after;
        subscriber.catchingUp = true;
        void this.#catchUp(subscriber);
      }
    }
    return { position: subscriber.position, stop };
  }

  /** This process committed changes: read them now rather than at the next poll. */
  wake(): void {
    if (this.#subscribers.size > 0) this.#read();
  }

  close(): void {
    this.#closed = true;
    this.#stopTimer();
    this.#subscribers.clear();
  }

  #startTimer(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => this.#read(), this.#pollMs);
    this.#timer.unref();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One read at a time; a wake during a read reads again after it. */
  #read(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#readAll()
      .catch(this.#onError)
      .finally(() => {
        this.#reading = undefined;
        if (this.#again && !this.#closed) {
          this.#again = false;
          this.#read();
        }
      });
  }

  async #readAll(): Promise<void> {
    for (;;) {
      const changes = await this.#log.after(this.#cursor ?? 0, pageSize);
      if (changes.length === 0) return;
      this.#cursor = changes[changes.length - 1]!.seq;
      const concerned = new Set<Subscriber>();
      for (const change of changes) for (const subscriber of this.#byType.get(change.type) ?? []) concerned.add(subscriber);
      for (const subscriber of concerned) {
        if (!subscriber.catchingUp) hand(subscriber, changes.filter((change) => subscriber.listener.types.has(change.type)));
      }
      if (changes.length < pageSize) return;
    }
  }

  /** Reads from the subscriber's position up to the feed's cursor, then lets the feed hand it the rest. */
  async #catchUp(subscriber: Subscriber): Promise<void> {
    try {
      while (this.#subscribers.has(subscriber)) {
        if (subscriber.position >= (this.#cursor ?? 0)) {
          subscriber.catchingUp = false;
          return;
        }
        const changes = await this.#log.after(subscriber.position, Math.min(pageSize, (this.#cursor ?? 0) - subscriber.position));
        if (changes.length === 0) {
          subscriber.position = this.#cursor ?? subscriber.position;
          continue;
        }
        hand(subscriber, changes.filter((change) => change.seq <= (this.#cursor ?? 0)));
      }
    } catch (error) {
      this.#onError(error);
      subscriber.listener.resync(subscriber.position);
      subscriber.catchingUp = false;
    }
  }
}

function hand(subscriber: Subscriber, changes: readonly LoggedChange[]): void {
  const fresh = changes.filter((change) => change.seq > subscriber.position);
  if (fresh.length === 0) return;
  subscriber.position = fresh[fresh.length - 1]!.seq;
  subscriber.listener.changes(fresh);
}

/** Removes the change log's entries older than `keepHours`, a bounded batch at a time; answers how many. */
export async function pruneChangeLog(log: ChangeLogStore, keepHours: number): Promise<number> {
  const before = new Date(Date.now() - keepHours * 3_600_000).toISOString();
  let removed = 0;
  for (let batch = await log.prune(before, 5_000); batch > 0; batch = await log.prune(before, 5_000)) removed += batch;
  return removed;
}
