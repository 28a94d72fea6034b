/**
 * The pause after the `failures`-th failed attempt: `first`, doubled after each further failure,
 * at most `max`, less up to a quarter at random so that the retries of many events failing at
 * once spread out (still longer after each failure, while below the cap).
 */
export function retryDelay(failures: number, limits: { readonly first: number; readonly max: number }, random: () => number = Math.random): number {
  const full = Math.min(limits.first * 2 ** Math.min(failures - 1, 40), limits.max);
  return Math.round(full * (0.75 + 0.25 * random()));
}
