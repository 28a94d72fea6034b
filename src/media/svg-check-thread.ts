import { createReadStream } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { SvgCheck } from './svg-check.js';

// Parsing holds little more than the open elements (depth is bounded), so this is generous; a
// file built to exhaust it anyway is refused, not allowed to take the process down.
const workerMemoryMb = 256;

/**
 * The problem `SvgCheck` finds in the SVG file at `path`, computed in a worker thread and read
 * as a stream: parsing takes tens of milliseconds per megabyte, and an upload may hold tens of
 * megabytes, which would stall every other request for as long on the main thread.
 */
export function svgFileProblem(path: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: path, resourceLimits: { maxOldGenerationSizeMb: workerMemoryMb } });
    worker.once('message', (problem: string | null) => resolve(problem));
    worker.once('error', (error) => {
      if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') resolve('it is too complex to check');
      else reject(error);
    });
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`The SVG check stopped with exit code ${code}`));
    });
  });
}

async function checkFile(path: string): Promise<string | null> {
  const check = new SvgCheck();
  const stream = createReadStream(path, { encoding: 'utf8' });
  for await (const chunk of stream) {
    if (!check.write(chunk as string)) {
      stream.destroy();
      break;
    }
  }
  return check.finish();
}

// This same module is the worker's entry point.
if (!isMainThread && parentPort) {
  parentPort.postMessage(await checkFile(workerData as string));
}
