import type { ThrottleKey } from './storage-adapter.js';

/** What each adapter's login throttle runs its statements through, inside one transaction. */
export interface ThrottleStatements {
  /** Counts one attempt against `key` unless it is locked; whether it did. */
  takeOne(key: ThrottleKey, now: number): Promise<boolean>;
  giveBack(key: ThrottleKey, now: number): Promise<void>;
  lockedUntil(keys: readonly string[], now: number): Promise<number | null>;
}

/**
 * `LoginThrottleStore.take` on one transaction's statements: each key in turn, or none. Keys are
 * taken in one order (by key) so that transactions taking the same ones side by side (PostgreSQL
 * locks each row it counts) wait for each other instead of deadlocking. When one refuses, those
 * taken before it are given back: nobody else could count them meanwhile (the rows are locked,
 * or SQLite writes one at a time), so the counts are as they were.
 */
export async function takeEach(statements: ThrottleStatements, keys: readonly ThrottleKey[], now: number): Promise<number | null> {
  const ordered = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const taken: ThrottleKey[] = [];
  for (const key of ordered) {
    if (!(await statements.takeOne(key, now))) {
      for (const back of taken) await statements.giveBack(back, now);
      // The refusing key is locked past `now`: the fallback is only for the type checker.
      return (await statements.lockedUntil(keys.map(({ key }) => key), now)) ?? now + key.periodMs;
    }
    taken.push(key);
  }
  return null;
}
