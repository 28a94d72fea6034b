import { RetryLaterError } from '../errors/app-error.js';

/**
 * Runs at most `concurrency` tasks at once; up to `queueLimit` more wait their turn in call
 * order, and a task beyond those is refused at once with 503 (`unavailable`) and Retry-After:
 * the server is busy for everybody, not this client too demanding.
 */
export class BoundedPool {
  readonly #concurrency: number;
  readonly #queueLimit: number;
  readonly #retryAfter: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: { concurrency: number; queueLimit: number; retryAfterSeconds: number }) {
    this.#concurrency = options.concurrency;
    this.#queueLimit = options.queueLimit;
    this.#retryAfter = options.retryAfterSeconds;
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.#turn();
    try {
      return await task();
    } finally {
      // A waiting task takes over this one's place: the count of running tasks stays.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  #turn(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running++;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#queueLimit) {
      return Promise.reject(new RetryLaterError('unavailable', 'The server is busy; try again shortly.', this.#retryAfter));
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
