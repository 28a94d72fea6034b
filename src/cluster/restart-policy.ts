/** When the primary forks a worker again after one died, and when it stops trying. */
export interface RestartLimits {
  /** Deaths before listening, in a row, after which the primary gives up and exits. */
  readonly maxStartDeaths: number;
  /** Wait before the first restart; it doubles with each death in a row. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** A period without any death that ends the row. */
  readonly quietMs: number;
}

export type RestartDecision = { readonly restartInMs: number } | { readonly giveUp: true };

/** Three tries per worker before giving up; waits of 0.25, 0.5, 1, 2, 4, then 8 s at most. */
export function defaultRestartLimits(workers: number): RestartLimits {
  return { maxStartDeaths: 3 * workers, firstDelayMs: 250, maxDelayMs: 8_000, quietMs: 60_000 };
}

/**
 * Deaths in a row back off exponentially, so a worker that dies at once does not loop hot. Only
 * deaths before listening lead to giving up: those say the worker cannot start (a port taken, a
 * store gone), while a worker killed later (out of memory, a crash on some request) served and
 * will serve again.
 */
export class RestartPolicy {
  readonly #limits: RestartLimits;
  #deaths = 0;
  #startDeaths = 0;
  #lastDeathAt = Number.NEGATIVE_INFINITY;

  constructor(limits: RestartLimits) {
    this.#limits = limits;
  }

  /** A worker died without being asked to, at `now` (ms); `listened`: it had been serving. */
  afterDeath({ listened, now }: { listened: boolean; now: number }): RestartDecision {
    if (now - this.#lastDeathAt > this.#limits.quietMs) {
      this.#deaths = 0;
      this.#startDeaths = 0;
    }
    this.#lastDeathAt = now;
    this.#deaths += 1;
    if (!listened) this.#startDeaths += 1;
    if (this.#startDeaths >= this.#limits.maxStartDeaths) return { giveUp: true };
    return { restartInMs: Math.min(this.#limits.firstDelayMs * 2 ** (this.#deaths - 1), this.#limits.maxDelayMs) };
  }
}
