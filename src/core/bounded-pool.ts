import { RetryLaterError } from '../errors/app-error.js';

export interface BoundedPoolOptions {
  readonly concurrency: number;
  readonly queueLimit: number;
  readonly retryAfterSeconds: number;
  /** What the refusal says, and its `data` (the limit it names); a general "busy" by default. */
  readonly refusal?: { readonly message: string; readonly data?: Readonly<Record<string, unknown>> };
}

/**
 * Runs at most `concurrency` tasks at once; up to `queueLimit` more wait their turn in call
 * order, and a task beyond those is refused at once with 503 (`unavailable`) and Retry-After:
 * the server is busy for everybody, not this client too demanding.
 */
export class BoundedPool {
  readonly #concurrency: number;
  readonly #queueLimit: number;
  readonly #retryAfter: number;
  readonly #refusal: NonNullable<BoundedPoolOptions['refusal']>;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: BoundedPoolOptions) {
    this.#concurrency = options.concurrency;
    this.#queueLimit = options.queueLimit;
    this.#retryAfter = options.retryAfterSeconds;
    this.#refusal = options.refusal ?? { message: 'The server is busy; try again shortly.' };
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Runs `task` in its turn. `refusable: false` waits however many wait already: for the server's
   * own work that follows a write already committed, which has no client to answer 503.
   */
  async run<T>(task: () => Promise<T>, options: { refusable?: boolean } = {}): Promise<T> {
    await this.#turn(options.refusable ?? true);
    try {
      return await task();
    } finally {
      // A waiting task takes over this one's place: the count of running tasks stays.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  #turn(refusable: boolean): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running++;
      return Promise.resolve();
    }
    if (refusable && this.#waiting.length >= this.#queueLimit) {
      const { message, data } = this.#refusal;
      return Promise.reject(new RetryLaterError('unavailable', message, this.#retryAfter, { ...data }));
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
