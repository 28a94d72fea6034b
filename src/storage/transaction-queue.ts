import { AsyncLocalStorage } from 'node:async_hooks';
import type { StorageAdapter, StorageSession, TransactionOptions } from './interface/adapter.js';

/*
 * How an adapter's transactions queue, whatever its database: how many run at once, which
 * runs again after a lost race, which is refused as nested, and the options they take.
 */

type Transaction = StorageAdapter['transaction'];
type Work<T> = (tx: StorageSession) => Promise<T>;

/** Whether a transaction is still running: its session refuses statements once it is not. */
export interface TransactionState {
  active: boolean;
}

/** Runs `work` in one database transaction, on the adapter's own connection handling. */
export type RunTransaction = <T>(work: Work<T>, state: TransactionState, options: TransactionOptions) => Promise<T>;

/** `StorageAdapter.transaction`, with or without options, from one that always takes them. */
export function withOptionalOptions(run: <T>(options: TransactionOptions, work: Work<T>) => Promise<T>): Transaction {
  return <T>(first: TransactionOptions | Work<T>, second?: Work<T>): Promise<T> =>
    typeof first === 'function' ? run({}, first) : run(first, second!);
}

/**
 * The adapter's `transaction` for a database that lets transactions run side by side: at most
 * `limit` at once, the others waiting in call order. A work whose transaction lost a race
 * (`retryable`) runs again from the start, in a new transaction, up to `maxAttempts` times in all,
 * after a short random pause that keeps the losers of one race from meeting again. A transaction
 * that failed in a way `retryOnce` names (its connection broke before it did anything) runs
 * again once more, at once: nobody else is in the way, a pause would only delay it. A transaction
 * or a top-level write started from inside another's work is refused: it could wait for a lock
 * that work holds. `idle` settles once every transaction asked for has ended.
 */
export function limitedTransactions(args: {
  readonly limit: number;
  readonly run: RunTransaction;
  readonly retryable: (error: unknown) => boolean;
  readonly maxAttempts: number;
  readonly retryOnce?: (error: unknown) => boolean;
}): { transaction: Transaction; idle(): Promise<void> } {
  const { limit, run, retryable, maxAttempts, retryOnce = () => false } = args;
  const nesting = transactionNesting();
  const waiting: (() => void)[] = [];
  const whenIdle: (() => void)[] = [];
  let running = 0;

  const acquire = async () => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  // The place goes straight to the next in line, so a newcomer cannot overtake it.
  const release = () => {
    const next = waiting.shift();
    if (next) return next();
    running--;
    if (running === 0) for (const resolve of whenIdle.splice(0)) resolve();
  };

  const transaction = withOptionalOptions(async (options, work) => {
    nesting.refuseNested();
    await acquire();
    try {
      let retriedOnce = false;
      for (let attempt = 1; ; attempt++) {
        const state = { active: true };
        try {
          return await nesting.run(state, () => run(work, state, options));
        } catch (error) {
          if (!retriedOnce && retryOnce(error)) {
            retriedOnce = true;
            continue;
          }
          if (attempt >= maxAttempts || !retryable(error)) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
      }
    } finally {
      release();
    }
  });

  return {
    transaction,
    idle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => whenIdle.push(resolve))),
  };
}

/**
 * Which transaction's work the current code runs in, so that a transaction started from inside
 * another's work is refused: it would wait for the lock that work holds.
 *
 * The context is tracked only while a transaction runs. On Node 20 an enabled AsyncLocalStorage
 * installs async hooks that run for every promise the process makes, reads from the response
 * cache included (about a tenth of a cached list's CPU time); disabled once no transaction runs,
 * the hooks go, and a read between writes pays nothing. A continuation of an ended transaction
 * that runs later finds its state no longer active.
 */
export function transactionNesting(): {
  run<T>(state: TransactionState, work: () => Promise<T>): Promise<T>;
  refuseNested(): void;
} {
  const current = new AsyncLocalStorage<TransactionState>();
  let running = 0;
  return {
    async run(state, work) {
      running++;
      try {
        return await current.run(state, work);
      } finally {
        if (--running === 0) current.disable();
      }
    },
    refuseNested() {
      if (current.getStore()?.active) {
        throw new Error('Nested transaction: write through the session given to the transaction');
      }
    },
  };
}

/** Runs tasks one at a time, in call order, whether earlier ones succeed or fail. */
export type Mutex = <T>(task: () => Promise<T>) => Promise<T>;

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const result = tail.then(task);
    tail = result.catch(() => undefined);
    return result;
  };
}
