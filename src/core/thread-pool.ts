import { Worker, type MessagePort, type ResourceLimits } from 'node:worker_threads';

/** A request as it travels to a thread: the caller's fields and the id its answer comes back with. */
export type ThreadRequest<Request> = Request & { readonly id: number };

/** A thread's answer to the request with `id`: its value, or the message of what it threw. */
export type ThreadAnswer<Value> = { readonly id: number; readonly value: Value } | { readonly id: number; readonly error: string };

interface Pending<Value> {
  resolve(value: Value): void;
  reject(error: Error): void;
}

interface Thread<Value> {
  readonly worker: Worker;
  readonly pending: Map<number, Pending<Value>>;
}

export interface ThreadPoolOptions {
  /** The module a thread runs; it answers with `serveThreadRequests`. */
  readonly entry: URL;
  readonly workerData?: unknown;
  readonly resourceLimits?: ResourceLimits;
  /** Threads at most. */
  readonly size: number;
  /** What the threads do, for the error of one that stops ("A read thread stopped"). */
  readonly name: string;
}

/**
 * Worker threads for work that would hold the event loop. Threads start on first use, a request
 * goes to an idle thread or, when all are busy and no more may start, to the one with the fewest
 * waiting; a thread keeps the process alive only while a request waits on it. A thread that
 * fails fails what waits on it, and the next request starts another.
 */
export class ThreadPool<Request extends object, Value> {
  readonly #options: ThreadPoolOptions;
  readonly #threads: Thread<Value>[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: ThreadPoolOptions) {
    this.#options = options;
  }

  run(request: Request): Promise<Value> {
    if (this.#closed) return Promise.reject(new Error(`The ${this.#options.name} threads are closed`));
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ ...request, id } satisfies ThreadRequest<Request>);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.splice(0).map((thread) => thread.worker.terminate()));
  }

  #leastBusy(): Thread<Value> {
    const idle = this.#threads.find((thread) => thread.pending.size === 0);
    if (idle) return idle;
    if (this.#threads.length < this.#options.size) return this.#start();
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): Thread<Value> {
    const { entry, workerData, resourceLimits, name } = this.#options;
    const worker = new Worker(entry, { workerData, resourceLimits });
    const thread: Thread<Value> = { worker, pending: new Map() };
    worker.on('message', (answer: ThreadAnswer<Value>) => {
      const waiting = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      if ('error' in answer) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.value);
    });
    const fail = (error: Error) => {
      const index = this.#threads.indexOf(thread);
      if (index >= 0) this.#threads.splice(index, 1);
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`A ${name} thread stopped (exit code ${code})`)));
    worker.unref();
    this.#threads.push(thread);
    return thread;
  }
}

/** The thread's side of a ThreadPool: answers each request, in the order they come, with `handle`'s value. */
export function serveThreadRequests<Request, Value>(port: MessagePort, handle: (request: Request) => Value): void {
  port.on('message', (request: ThreadRequest<Request>) => {
    let answer: ThreadAnswer<Value>;
    try {
      answer = { id: request.id, value: handle(request) };
    } catch (error) {
      answer = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  });
}
