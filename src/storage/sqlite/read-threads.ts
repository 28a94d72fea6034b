import { ThreadPool } from '../../core/thread-pool.js';

/** What a statement's answer is made of: every row's first column, every row, or one value. */
export type ReadShape = 'column' | 'rows' | 'value';

export interface ReadRequest {
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly shape: ReadShape;
}

export interface ReadThreadData {
  readonly filename: string;
  readonly memoryMapped: boolean;
}

/**
 * Worker threads, each with a read-only connection to the store's file, for the reads whose cost
 * grows with what they select (a sort no index holds, a full-text search): while one of those
 * runs for tens of milliseconds, the event loop goes on answering everyone else. WAL gives each
 * connection the last committed snapshot, as it does the main read connection. Threads start
 * on first use; a statement goes to the thread with the fewest waiting.
 */
export class ReadThreads {
  readonly #pool: ThreadPool<ReadRequest, unknown>;

  constructor(options: ReadThreadData & { readonly size: number }) {
    const workerData: ReadThreadData = { filename: options.filename, memoryMapped: options.memoryMapped };
    this.#pool = new ThreadPool({ entry: new URL('./read-thread.js', import.meta.url), workerData, size: options.size, name: 'read' });
  }

  run(sql: string, params: readonly unknown[], shape: ReadShape): Promise<unknown> {
    return this.#pool.run({ sql, params, shape });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
