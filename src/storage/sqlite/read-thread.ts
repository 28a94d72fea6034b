/**
 * A worker thread of ReadThreads: its own read-only connection to the store's file, running the
 * statements the main thread hands it, one at a time, in the order they came.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveThreadRequests } from '../../core/thread-pool.js';
import { openConnection } from './connection.js';
import { StatementCache } from './statement-cache.js';
import type { ReadRequest, ReadThreadData } from './read-threads.js';

const { filename, memoryMapped } = workerData as ReadThreadData;
const statements = new StatementCache(openConnection({ filename, memoryMapped, readOnly: true }));

serveThreadRequests(parentPort!, ({ sql, params, shape }: ReadRequest) => {
  const statement = statements.statement(sql);
  return shape === 'value' ? statement.pluck().get(...params) : statement.pluck(shape === 'column').all(...params);
});
