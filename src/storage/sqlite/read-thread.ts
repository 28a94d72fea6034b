/**
 * A worker thread of ReadThreads: its own read-only connection to the store's file, running the
 * statements the main thread hands it, one at a time, in the order they came.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.js';
import { StatementCache } from './statement-cache.js';
import type { ReadRequest, ReadResult, ReadThreadData } from './read-threads.js';

const { filename, memoryMapped } = workerData as ReadThreadData;
const statements = new StatementCache(openConnection({ filename, memoryMapped, readOnly: true }));

parentPort!.on('message', ({ id, sql, params, shape }: ReadRequest) => {
  let result: ReadResult;
  try {
    const statement = statements.statement(sql);
    const rows = shape === 'value' ? statement.pluck().get(...params) : statement.pluck(shape === 'column').all(...params);
    result = { id, rows };
  } catch (error) {
    result = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(result);
});
