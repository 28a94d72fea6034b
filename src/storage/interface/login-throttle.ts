/** One attempt counted against `key`: `limit` attempts within `periodMs` lock it for `periodMs`. */
export interface ThrottleKey {
  readonly key: string;
  readonly limit: number;
  readonly periodMs: number;
}

/**
 * Login attempts counted per key (a username, a client address), in the store so that every
 * server process sees the same counts. An attempt is counted before it is checked, so that
 * requests sent side by side are throttled as those sent one after another. Times are
 * milliseconds since the epoch.
 */
export interface LoginThrottleStore {
  /** The latest time until which one of `keys` is locked, or null when none is locked at `now`. */
  lockedUntil(keys: readonly string[], now: number): Promise<number | null>;
  /**
   * Counts one attempt against every one of `keys` at `now`, or against none: null when each
   * took it, else the latest time until which one of them is locked. Atomic however many
   * requests take at once: each sees the others' counts. A locked key refuses; a count whose
   * period is over starts again at one; the count reaching its limit locks the key until
   * `now + periodMs`. Removes the entries whose period has ended.
   */
  take(keys: readonly ThrottleKey[], now: number): Promise<number | null>;
  /**
   * Uncounts one attempt taken against `key` within its period, one that was not a failure
   * after all; below its limit again, the key is unlocked.
   */
  giveBack(key: ThrottleKey, now: number): Promise<void>;
  /** Forgets the attempts counted against `key`. */
  clear(key: string): Promise<void>;
}
