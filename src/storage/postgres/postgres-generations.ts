import type pg from 'pg';
import { sharedRead } from '../shared-read.js';

// The whole table, read by every caller alike: a key (a piece type, or the attachments' key) is
// the sum of its counters (migration 8).
const generationsSql = 'SELECT key, sum(value)::text AS value FROM generations GROUP BY key';
// Each key once per transaction, at its commit (see postgres-adapter.ts).
const countUpSql = 'SELECT count_up_generation(key) FROM unnest($1::text[]) AS key';

/**
 * `StorageAdapter.generation` of the PostgreSQL store: the values counted up at the commit of
 * each write (migrations 5, 8 and 13), so that a value moves exactly when the write becomes
 * visible, to this process and to every other. The cached GETs ask for it on every request: the
 * callers that come while a read runs share the next one (`sharedRead`), which begins after they
 * asked, so none is answered from before a commit it could know of.
 */
export function postgresGenerations(pool: Pick<pg.Pool, 'query'>): (keys: readonly string[]) => Promise<string> {
  const readAll = sharedRead(async () => {
    const { rows } = await pool.query<{ key: string; value: string }>(generationsSql);
    return new Map(rows.map((row) => [row.key, row.value]));
  });
  return async (keys) => {
    const values = await readAll();
    return keys.map((key) => values.get(key) ?? '0').join(' ');
  };
}

/** Counts up the generation of each of `keys` in the transaction of `client`, just before it commits. */
export async function countUpGenerations(client: Pick<pg.PoolClient, 'query'>, keys: ReadonlySet<string>): Promise<void> {
  if (keys.size > 0) await client.query(countUpSql, [[...keys]]);
}
