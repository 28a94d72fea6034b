import { RetryLaterError } from '../errors/app-error.js';

export interface UploadBudgetLimits {
  /** Bytes one caller may upload in a minute, refused uploads included (they were received too). */
  readonly bytesPerMinute: number;
  /** Uploads one caller may run at the same time. */
  readonly inFlight: number;
}

/** One upload's hold on its caller's budget, from its start to `release`. */
export interface UploadLease {
  /** Counts `bytes` more received; throws a 429 once the caller's minute is spent. */
  charge(bytes: number): void;
  /** Counts `bytes` about to be written when they fit in the caller's minute; else throws a 429 and counts nothing. */
  take(bytes: number): void;
  release(): void;
}

interface CallerState {
  windowStart: number;
  bytes: number;
  inFlight: number;
}

const windowMs = 60_000;
// When all a caller has is uploads in progress, nothing says when one ends: a second is a fair guess.
const inFlightRetryAfter = 1;

/**
 * Per-caller upload budgets, in fixed one-minute windows (a caller may reach twice the budget
 * across a window boundary, never more). Held in this process: each server process of a
 * cluster grants its own budget.
 */
export class UploadBudget {
  readonly #limits: UploadBudgetLimits;
  readonly #now: () => number;
  readonly #callers = new Map<string, CallerState>();

  constructor(limits: UploadBudgetLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Starts an upload for `callerId`; throws a 429 when the caller has too many running or its minute is spent. */
  begin(callerId: string): UploadLease {
    this.#prune();
    const state = this.#current(callerId);
    if (state.inFlight >= this.#limits.inFlight) {
      throw new RetryLaterError('toomany', `At most ${this.#limits.inFlight} uploads (crops included) at a time`, inFlightRetryAfter, { limit: 'uploadsInFlight' });
    }
    if (state.bytes >= this.#limits.bytesPerMinute) throw this.#spent(state);
    state.inFlight += 1;
    let released = false;
    return {
      charge: (bytes) => {
        const current = this.#current(callerId);
        current.bytes += bytes;
        if (current.bytes > this.#limits.bytesPerMinute) throw this.#spent(current);
      },
      take: (bytes) => {
        const current = this.#current(callerId);
        if (current.bytes + bytes > this.#limits.bytesPerMinute) throw this.#spent(current);
        current.bytes += bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#current(callerId).inFlight -= 1;
      },
    };
  }

  /** The refusal of a caller whose minute is spent: try again when the window is over. */
  #spent(state: CallerState): RetryLaterError {
    const retryAfter = Math.max(1, Math.ceil((state.windowStart + windowMs - this.#now()) / 1000));
    return new RetryLaterError('toomany', `The upload budget of ${this.#limits.bytesPerMinute} bytes a minute is spent`, retryAfter, {
      limit: 'uploadBytesPerMinute',
    });
  }

  /** The caller's state in the current window, a new window starting when the last one is over. */
  #current(callerId: string): CallerState {
    const now = this.#now();
    const state = this.#callers.get(callerId) ?? { windowStart: now, bytes: 0, inFlight: 0 };
    if (now - state.windowStart >= windowMs) Object.assign(state, { windowStart: now, bytes: 0 });
    this.#callers.set(callerId, state);
    return state;
  }

  /** Forgets callers with nothing running and a window that is over: the map holds recent callers only. */
  #prune(): void {
    const now = this.#now();
    for (const [callerId, state] of this.#callers) {
      if (state.inFlight === 0 && now - state.windowStart >= windowMs) this.#callers.delete(callerId);
    }
  }
}
