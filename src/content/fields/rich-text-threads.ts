import { parentPort, workerData } from 'node:worker_threads';
import { ThreadPool, serveThreadRequests } from '../../core/thread-pool.js';
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
  readonly html: string;
  readonly options: RichTextOptions;
}

// One pool per size asked for (`limits.sanitizeThreads`: one in a server process).
const pools = new Map<number, ThreadPool<SanitizeRequest, RichTextValue>>();

/** `sanitizeRichText` by an area's options, in one of at most `threadCount` worker threads (`limits.sanitizeThreads`). */
export function sanitizeInThread(html: string, options: RichTextOptions, threadCount: number): Promise<RichTextValue> {
  let pool = pools.get(threadCount);
  if (!pool) {
    pool = new ThreadPool({ entry: new URL(import.meta.url), workerData: threadMarker, size: threadCount, name: 'rich-text' });
    pools.set(threadCount, pool);
  }
  return pool.run({ html, options });
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
  serveThreadRequests(port, ({ html, options }: SanitizeRequest) => {
    const key = JSON.stringify(options);
    let rules = rulesByOptions.get(key);
    if (!rules) rulesByOptions.set(key, (rules = compileRichTextRules(options)));
    return sanitizeRichText(html, rules);
  });
}

// This same module is the worker's entry point.
if (workerData === threadMarker && parentPort) serve(parentPort);
