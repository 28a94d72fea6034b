import type { StorageAdapter, StorageSession } from '../interface/adapter.js';
import { transactionNesting, withOptionalOptions, type Mutex, type TransactionState } from '../transaction-queue.js';

type Transaction = StorageAdapter['transaction'];

/** What the group runner needs of the write connection. */
export interface GroupConnection {
  /** Takes the write lock: waits, without holding the event loop, for another process's write. */
  begin(): Promise<void>;
  commit(): void;
  /** Undoes the transaction, whether SQLite still has it open or ended it itself. */
  rollback(): void;
  /** False once SQLite itself ended the transaction (some I/O and memory errors do). */
  readonly inTransaction: boolean;
  /** Rows written so far by the connection: unchanged across a work means it wrote nothing. */
  totalChanges(): number;
}

interface QueuedWrite {
  readonly work: (tx: StorageSession) => Promise<unknown>;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The adapter's `transaction`, committing the writes that queue up meanwhile together (group
 * commit). Each commit costs the same whatever it holds: SQLite writes the WAL frames and FTS5
 * writes its pending terms as a new index segment (and merges segments) at every commit, and
 * that is most of a small write's cost. So while one group runs, the writes that arrive wait,
 * and the next group runs them one after another in one SQLite transaction, up to `maxGroup`.
 *
 * Each write stays all-or-nothing and independent of the others, and runs in arrival order:
 * - a caller hears of its write only after the commit that holds it;
 * - a work that fails before writing anything (validation, a 404, a 403: most failures) is
 *   refused alone, and the group goes on;
 * - a work that fails after writing rolls the whole group back; it is refused, and the works
 *   before it in the group run again, first in the next group, from the state they first saw.
 *   A work is a function of what it reads through its session, and no caller saw its result,
 *   so running it again is as running it once. A savepoint per work would spare the rerun but
 *   make FTS5 write a segment at each one, the very cost the grouping saves.
 * - a failed commit refuses every write of the group: none of it is stored.
 */
export function groupedTransactions(args: {
  readonly runExclusive: Mutex;
  readonly connection: GroupConnection;
  readonly sessionFor: (state: TransactionState) => StorageSession;
  readonly maxGroup: number;
}): Transaction {
  const { runExclusive, connection, sessionFor, maxGroup } = args;
  const nesting = transactionNesting();
  const queue: QueuedWrite[] = [];
  let scheduled = false;

  // A group starts on the event loop's next turn: a work runs on microtasks alone (the driver
  // is synchronous), so starting at once would let no other request reach its write first. One
  // group per turn of the mutex, so migrate and close wait behind one group, not a stream of them.
  const schedule = () => {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      void runExclusive(async () => {
        const group = queue.splice(0, maxGroup);
        try {
          await runGroup(group);
        } catch (error) {
          // The connection failed to roll back (writes of the group that settled stay settled).
          for (const write of group) write.reject(error);
        } finally {
          scheduled = false;
          schedule();
        }
      });
    });
  };

  async function runGroup(group: readonly QueuedWrite[]): Promise<void> {
    try {
      await connection.begin();
    } catch (error) {
      for (const write of group) write.reject(error);
      return;
    }
    const done: { write: QueuedWrite; result: unknown }[] = [];
    for (const [position, write] of group.entries()) {
      const before = connection.totalChanges();
      const state = { active: true };
      try {
        done.push({ write, result: await nesting.run(state, () => write.work(sessionFor(state))) });
      } catch (error) {
        write.reject(error);
        if (connection.inTransaction && connection.totalChanges() === before) continue;
        connection.rollback();
        queue.unshift(...done.map((entry) => entry.write), ...group.slice(position + 1));
        return;
      } finally {
        state.active = false;
      }
    }
    try {
      connection.commit();
    } catch (error) {
      connection.rollback();
      for (const { write } of done) write.reject(error);
      return;
    }
    for (const { write, result } of done) write.resolve(result);
  }

  // One writer at a time holds every document and attachment: the options' holds are had already.
  return withOptionalOptions(<T>(_options: unknown, work: (tx: StorageSession) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      nesting.refuseNested();
      queue.push({ work, resolve: resolve as (result: unknown) => void, reject });
      schedule();
    }));
}
