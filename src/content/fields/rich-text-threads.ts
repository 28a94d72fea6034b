import { Worker, parentPort, workerData } from 'node:worker_threads';
import { compileRichTextRules, sanitizeRichText, type RichTextOptions, type RichTextRules, type RichTextValue } from './rich-text.js';

/**
 * Below this many characters rich text is sanitized on the event loop: a few milliseconds at
 * most, less than the trip to a thread. Above it, sanitizing takes up to about 2.5 s per
 * million characters, which would hold every other request for as long.
 */
export const offLoopCharacters = 10_000;

// Marks the threads this module starts, so that it serves only in those.
const threadMarker = 'cms-rich-text-thread';

interface SanitizeRequest {
  readonly id: number;
  readonly html: string;
  readonly options: RichTextOptions;
}

type SanitizeResult = { readonly id: number; readonly value: RichTextValue } | { readonly id: number; readonly error: string };

interface Pending {
  resolve(value: RichTextValue): void;
  reject(error: Error): void;
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * Worker threads that sanitize big rich text off the event loop. Threads start on first use,
 * keep the process alive only while a request waits on them, and take requests in turn.
 */
class RichTextThreads {
  readonly #threads: Thread[] = [];
  #nextId = 0;

  sanitize(html: string, options: RichTextOptions, threadCount: number): Promise<RichTextValue> {
    const thread = this.#leastBusy(threadCount);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, html, options } satisfies SanitizeRequest);
    });
  }

  #leastBusy(threadCount: number): Thread {
    if (this.#threads.length < threadCount) return this.#start();
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): Thread {
    const worker = new Worker(new URL(import.meta.url), { workerData: threadMarker });
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (result: SanitizeResult) => {
      const waiting = thread.pending.get(result.id);
      thread.pending.delete(result.id);
      if (thread.pending.size === 0) worker.unref();
      if ('error' in result) waiting?.reject(new Error(result.error));
      else waiting?.resolve(result.value);
    });
    // A thread that fails fails what waits on it; the next request starts another.
    const fail = (error: Error) => {
      const index = this.#threads.indexOf(thread);
      if (index >= 0) this.#threads.splice(index, 1);
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`A rich-text thread stopped (exit code ${code})`)));
    worker.unref();
    this.#threads.push(thread);
    return thread;
  }
}

const threads = new RichTextThreads();

/** `sanitizeRichText` by an area's options, in one of at most `threadCount` worker threads (`limits.sanitizeThreads`). */
export function sanitizeInThread(html: string, options: RichTextOptions, threadCount: number): Promise<RichTextValue> {
  return threads.sanitize(html, options, threadCount);
}

// Work longer than this on the event loop (many small widgets, each sanitized there) is cut by a
// turn of the loop, so that other requests are answered in between.
const sliceMs = 20;

/** Marks the turns of a long loop: `yieldIfLong` lets the event loop run when the slice is used up. */
export class LoopSlices {
  #start = performance.now();

  async yieldIfLong(): Promise<void> {
    if (performance.now() - this.#start < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#start = performance.now();
  }
}

/** The thread's side: rules compiled once per distinct set of options (one per configured area). */
function serve(port: NonNullable<typeof parentPort>): void {
  const rulesByOptions = new Map<string, RichTextRules>();
  port.on('message', ({ id, html, options }: SanitizeRequest) => {
    let result: SanitizeResult;
    try {
      const key = JSON.stringify(options);
      let rules = rulesByOptions.get(key);
      if (!rules) rulesByOptions.set(key, (rules = compileRichTextRules(options)));
      result = { id, value: sanitizeRichText(html, rules) };
    } catch (error) {
      result = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(result);
  });
}

// This same module is the worker's entry point.
if (workerData === threadMarker && parentPort) serve(parentPort);
