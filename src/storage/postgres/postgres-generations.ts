import type pg from 'pg';
import { sharedRead } from '../shared-read.js';

// The whole table, read by every caller alike: a scope (a piece type, or the attachments) is the
// sum of its counters (migration 8).
const generationsSql = 'SELECT scope, sum(value)::text AS value FROM generations GROUP BY scope';

/**
 * `StorageAdapter.generation` of the PostgreSQL store: the values the triggers count up at the
 * commit of each write (migrations 5 and 8), so that a value moves exactly when the write becomes
 * visible, to this process and to every other. The cached GETs ask for it on every request: the
 * callers that come while a read runs share the next one (`sharedRead`), which begins after they
 * asked, so none is answered from before a commit it could know of.
 */
export function postgresGenerations(pool: Pick<pg.Pool, 'query'>): (scopes: readonly string[]) => Promise<string> {
  const readAll = sharedRead(async () => {
    const { rows } = await pool.query<{ scope: string; value: string }>(generationsSql);
    return new Map(rows.map((row) => [row.scope, row.value]));
  });
  return async (scopes) => {
    const values = await readAll();
    return scopes.map((scope) => values.get(scope) ?? '0').join(' ');
  };
}
