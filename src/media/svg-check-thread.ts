import { readFile } from 'node:fs/promises';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { svgProblem } from './svg-check.js';

/**
 * `svgProblem` of the SVG file at `path`, computed in a worker thread: the scan takes about
 * 15 ms per megabyte, and an upload may hold tens of megabytes, which would stall every other
 * request for as long on the main thread.
 */
export function svgFileProblem(path: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: path });
    worker.once('message', (problem: string | null) => resolve(problem));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`The SVG check stopped with exit code ${code}`));
    });
  });
}

// This same module is the worker's entry point.
if (!isMainThread && parentPort) {
  const port = parentPort;
  const text = await readFile(workerData as string, 'utf8');
  port.postMessage(svgProblem(text));
}
