import { createHash } from 'node:crypto';
import type { LoginThrottleStore, ThrottleKey } from '../storage/storage-adapter.js';
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
function keyOf(kind: 'account' | 'address' | 'setup-address', value: string): string {
  return createHash('sha256').update(`${kind}\u0000${value}`, 'utf8').digest('base64url');
}

/** "a minute", "2 minutes", "90 seconds": how long a lock lasts, in the original's words. */
function inWords(seconds: number): string {
  if (seconds % 60 !== 0) return seconds === 1 ? 'a second' : `${seconds} seconds`;
  return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
}

/**
 * The original's login throttle (3 failures within a minute lock the name for a minute), per
 * account and per client address, counted in the store so that every server process shares it.
 * An attempt is counted before its password is checked, so that attempts sent side by side are
 * throttled as those sent one after another; one that succeeds is uncounted again.
 */
export class LoginThrottle {
  readonly #store: LoginThrottleStore;
  readonly #limits: LoginThrottleLimits;

  constructor(store: LoginThrottleStore, limits: LoginThrottleLimits) {
    this.#store = store;
    this.#limits = limits;
  }

  /** Counts a login attempt against its account and its address; 429 `toomany` while either is locked. */
  takeLogin(attempt: LoginAttempt): Promise<void> {
    return this.#take(this.#loginKeys(attempt));
  }

  /** A success clears the account's count, and uncounts the attempt from the address's. */
  async loginSucceeded(attempt: LoginAttempt): Promise<void> {
    const [account, address] = this.#loginKeys(attempt);
    await this.#store.clear(account.key);
    await this.#store.giveBack(address, Date.now());
  }

  /** An attempt that was not checked after all (the hasher was busy): uncounted from both. */
  async loginUnchecked(attempt: LoginAttempt): Promise<void> {
    const now = Date.now();
    for (const key of this.#loginKeys(attempt)) await this.#store.giveBack(key, now);
  }

  /**
   * Counts a first-run setup code sent from `address`: per address, so that wrong codes sent
   * from one address lock that address only, not the operator elsewhere. As many as a username's.
   */
  takeSetupCode(address: string): Promise<void> {
    return this.#take([this.#setupKey(address)]);
  }

  /** A right code is no failure: uncounted again. */
  async setupCodeRight(address: string): Promise<void> {
    await this.#store.giveBack(this.#setupKey(address), Date.now());
  }

  async #take(keys: readonly ThrottleKey[]): Promise<void> {
    const until = await this.#store.take(keys, Date.now());
    if (until === null) return;
    // From the time of the answer: a lock another request set while this one waited for the
    // store may have started after this one's `now`. Other processes' clocks may differ a little.
    const seconds = Math.min(this.#limits.periodSeconds, Math.max(1, Math.ceil((until - Date.now()) / 1000)));
    throw new RetryLaterError('toomany', `Too many attempts. You may try again in ${inWords(this.#limits.periodSeconds)}.`, seconds);
  }

  #loginKeys(attempt: LoginAttempt): [ThrottleKey, ThrottleKey] {
    const periodMs = this.#limits.periodSeconds * 1000;
    return [
      { key: keyOf('account', attempt.account), limit: this.#limits.perUsername, periodMs },
      { key: keyOf('address', attempt.address), limit: this.#limits.perAddress, periodMs },
    ];
  }

  #setupKey(address: string): ThrottleKey {
    return { key: keyOf('setup-address', address), limit: this.#limits.perUsername, periodMs: this.#limits.periodSeconds * 1000 };
  }
}
