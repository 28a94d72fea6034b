import { createHash } from 'node:crypto';
import type { LoginFailure, LoginThrottleStore } from '../storage/storage-adapter.js';
import { RetryLaterError } from '../errors/app-error.js';

export interface LoginThrottleLimits {
  /** Failures for one account (or unknown username) within the period that lock it. */
  readonly perUsername: number;
  /** Failures from one client address within the period that lock it, whatever the usernames. */
  readonly perAddress: number;
  /** The period failures are counted over, and the length of a lock. */
  readonly periodSeconds: number;
}

/** One login attempt: `account` names the user it reached (or the unknown name), `address` the client. */
export interface LoginAttempt {
  readonly account: string;
  readonly address: string;
}

/** Digests: the store holds neither usernames nor addresses, and every key has the same length. */
function keyOf(kind: 'account' | 'address', value: string): string {
  return createHash('sha256').update(`${kind}\u0000${value}`, 'utf8').digest('base64url');
}

/**
 * The original's login throttle (3 failures within a minute lock the name for a minute), per
 * account and per client address, counted in the store so that every server process shares it.
 */
export class LoginThrottle {
  readonly #store: LoginThrottleStore;
  readonly #limits: LoginThrottleLimits;

  constructor(store: LoginThrottleStore, limits: LoginThrottleLimits) {
    this.#store = store;
    this.#limits = limits;
  }

  /** Throws 429 `toomany` with Retry-After while the account or the address is locked. */
  async refuseIfLocked(attempt: LoginAttempt): Promise<void> {
    const now = Date.now();
    const until = await this.#store.lockedUntil([keyOf('account', attempt.account), keyOf('address', attempt.address)], now);
    if (until === null) return;
    const seconds = Math.max(1, Math.ceil((until - now) / 1000));
    throw new RetryLaterError('toomany', `Too many attempts. You may try again in ${seconds} seconds.`, seconds);
  }

  async failed(attempt: LoginAttempt): Promise<void> {
    const periodMs = this.#limits.periodSeconds * 1000;
    const failures: LoginFailure[] = [
      { key: keyOf('account', attempt.account), limit: this.#limits.perUsername, periodMs },
      { key: keyOf('address', attempt.address), limit: this.#limits.perAddress, periodMs },
    ];
    await this.#store.recordFailures(failures, Date.now());
  }

  /** A success clears the account's failures; the address keeps its own. */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.#store.clear(keyOf('account', attempt.account));
  }
}
