import type pg from 'pg';
import type { GenerationRead, GenerationSources } from '../interface/adapter.js';
import { generationToken } from '../generation-token.js';
import type { Queryable } from './statements.js';

// One statement, so one snapshot: the position (the sum of every key's counters: the keys are
// the types, their modes and the attachments', bounded by the configuration, not by the store),
// then the requested keys (a key is the sum of its counters, migration 8) and versions (a row
// each, migration 17) by their primary keys, in the order asked. Each key moves at the commit
// of the write that counts it up (deferred triggers; the attachments' key at commit), and so
// does the position.
const generationsSql = `SELECT
  (SELECT coalesce(sum(value), 0) FROM generations)::text AS position,
  ARRAY(SELECT coalesce((SELECT sum(value) FROM generations WHERE key = k), 0)::text
    FROM unnest($1::text[]) WITH ORDINALITY AS asked (k, i) ORDER BY i) AS keys,
  ARRAY(SELECT coalesce((SELECT value FROM version_generations WHERE id = v), 0)::text
    FROM unnest($2::text[]) WITH ORDINALITY AS asked (v, i) ORDER BY i) AS versions`;
// Each key once per transaction, at its commit (see postgres-adapter.ts).
const countUpSql = 'SELECT count_up_generation(key) FROM unnest($1::text[]) AS key';

/** What callers asked for while the read before theirs ran: read together in the next one. */
interface Batch {
  readonly keys: Set<string>;
  readonly versions: Set<string>;
  readonly done: Promise<Map<string, string>>;
  position?: string;
}

/**
 * `StorageAdapter.generations` of the PostgreSQL store. The cached GETs ask on every request:
 * the callers that come while a read runs share the next one, which reads the union of what
 * they asked for and begins after they asked, so none is answered from before a commit it could
 * know of (see `sharedRead`). The position and the values come from one statement, one
 * snapshot: read before and after the values alike, so `positionLast` needs nothing more, and
 * `since` saves nothing worth a second round trip (the values are read anyway).
 */
export function postgresGenerations(reads: Queryable): (sources: GenerationSources) => Promise<GenerationRead> {
  let running: Promise<unknown> | null = null;
  let next: Batch | null = null;

  const read = async (batch: Batch): Promise<Map<string, string>> => {
    const keys = [...batch.keys];
    const versions = [...batch.versions];
    const { rows } = await reads.query<{ position: string; keys: string[]; versions: string[] }>({ text: generationsSql, values: [keys, versions] });
    const row = rows[0]!;
    batch.position = row.position;
    const values = new Map<string, string>();
    keys.forEach((key, i) => values.set(`k:${key}`, row.keys[i]!));
    versions.forEach((id, i) => values.set(`v:${id}`, row.versions[i]!));
    return values;
  };

  const batchFor = (): Batch => {
    if (next) return next;
    const batch: Batch = { keys: new Set(), versions: new Set(), done: undefined! };
    const previous = running?.then(
      () => undefined,
      () => undefined,
    );
    // Begins once the running read has ended (or at once), with every caller that joined it meanwhile.
    const done = (previous ?? Promise.resolve()).then(() => {
      if (next === batch) next = null;
      const current = read(batch);
      running = current;
      const finished = () => {
        if (running === current) running = null;
      };
      current.then(finished, finished);
      return current;
    });
    Object.assign(batch, { done });
    next = batch;
    return batch;
  };

  return async (sources) => {
    const batch = batchFor();
    for (const key of sources.keys) batch.keys.add(key);
    for (const id of sources.versions) batch.versions.add(id);
    const values = await batch.done;
    const token = generationToken(
      sources.keys.map((key) => values.get(`k:${key}`)!),
      sources.versions.map((id) => values.get(`v:${id}`)!),
    );
    return { position: batch.position!, token };
  };
}

/** Counts up the generation of each of `keys` in the transaction of `client`, just before it commits. */
export async function countUpGenerations(client: Pick<pg.PoolClient, 'query'>, keys: ReadonlySet<string>): Promise<void> {
  if (keys.size > 0) await client.query(countUpSql, [[...keys]]);
}
