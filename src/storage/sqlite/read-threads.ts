import { Worker } from 'node:worker_threads';

/** What a statement's answer is made of: every row's first column, every row, or one value. */
export type ReadShape = 'column' | 'rows' | 'value';

export interface ReadRequest {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly shape: ReadShape;
}

export type ReadResult = { readonly id: number; readonly rows: unknown } | { readonly id: number; readonly error: string };

export interface ReadThreadData {
  readonly filename: string;
  readonly memoryMapped: boolean;
}

interface Pending {
  resolve(rows: unknown): void;
  reject(error: Error): void;
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * Worker threads, each with a read-only connection to the store's file, for the reads whose cost
 * grows with what they select (a sort no index holds, a full-text search): while one of those
 * runs for tens of milliseconds, the event loop goes on answering everyone else. WAL gives each
 * connection the last committed snapshot, as it does the main read connection. Threads start
 * on first use; a statement goes to the thread with the fewest waiting.
 */
export class ReadThreads {
  readonly #data: ReadThreadData;
  readonly #size: number;
  readonly #threads: Thread[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: ReadThreadData & { readonly size: number }) {
    this.#data = { filename: options.filename, memoryMapped: options.memoryMapped };
    this.#size = options.size;
  }

  run(sql: string, params: readonly unknown[], shape: ReadShape): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('The storage adapter is closed'));
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // A thread keeps the process alive only while a read waits on it.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, sql, params, shape } satisfies ReadRequest);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.splice(0).map((thread) => thread.worker.terminate()));
  }

  #leastBusy(): Thread {
    const idle = this.#threads.find((thread) => thread.pending.size === 0);
    if (idle) return idle;
    if (this.#threads.length < this.#size) return this.#start();
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): Thread {
    const worker = new Worker(new URL('./read-thread.js', import.meta.url), { workerData: this.#data });
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (result: ReadResult) => {
      const waiting = thread.pending.get(result.id);
      thread.pending.delete(result.id);
      if (thread.pending.size === 0) worker.unref();
      if ('error' in result) waiting?.reject(new Error(result.error));
      else waiting?.resolve(result.rows);
    });
    // A thread that fails (it could not open the file) fails what waits on it; the next
    // statement starts another.
    const fail = (error: Error) => {
      const index = this.#threads.indexOf(thread);
      if (index >= 0) this.#threads.splice(index, 1);
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`A read thread stopped (exit code ${code})`)));
    worker.unref();
    this.#threads.push(thread);
    return thread;
  }
}
