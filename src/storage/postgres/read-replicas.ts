import pg from 'pg';
import type { PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { noteCommitted, parseLsn, readPosition, type ReadPosition } from '../../core/read-position.js';
import type { GenerationRead, GenerationSources, StoreConnectionHealth } from '../interface/adapter.js';
import { connectionsOf, isConnectionError } from './connections.js';
import { postgresGenerations } from './postgres-generations.js';
import type { Queryable } from './statements.js';

/*
 * Read replicas (`CMS_DATABASE_READ_URL`): the lock-free reads of GET requests (documents,
 * attachments, their counts and generations) go to a streaming replica that has replayed every
 * commit the caller has seen; everything else goes to the primary.
 *
 * The rules, and why:
 * - A request reads from one source from its first routed read on (pinned), moving only to the
 *   primary, which is ahead of every replica: its reads never go back in time. The response cache
 *   and the kept counts rely on that: an answer or a count is kept under the generations read in
 *   the same request, from the same source or a later one, so it is never older than the token
 *   it is kept under (a replica reads the counters as of its own replay, consistent with its
 *   documents). Reading the counters from the primary instead would pair the primary's newest
 *   token with a replica's older answer, and keep that stale answer until the next write.
 *   (So `generations().position` never comes back within a request; across requests it may, one
 *   served by a replica behind the last one's source: the PostgreSQL store ignores `since`, and
 *   the cache only compares positions read within one request.)
 * - A source is chosen for a request only if it has replayed the request's position (the
 *   caller's `CMS-Read-After`, raised by the request's own commits), as last polled; otherwise
 *   the primary. A polled replay position is no later than the replica's real one, so the rule
 *   errs towards the primary, never towards a stale read.
 * - Lag is time: how long ago the primary was at a position the replica has not replayed yet,
 *   from the primary's positions sampled at each poll (a replica of an idle primary does not lag,
 *   whatever its last replay's timestamp). One beyond `maxLagMs`, or down, is skipped.
 * - A server that is not in recovery (the primary itself named as a replica, or a replica that a
 *   failover promoted) is caught up by definition: its reads are the primary's.
 * - Reads outside a request (jobs, the CLI) and outside a GET stay on the primary: a job reads to
 *   decide what it writes.
 */

export interface ReadReplicaOptions {
  readonly urls: readonly string[];
  readonly schema?: string;
  readonly poolSize: number;
  readonly connectTimeout: number;
  /** As the primary's (`limits.postgresStatementTimeout`): a replica that stops answering holds no request longer. */
  readonly statementTimeout: number;
  readonly keepAliveDelay: number;
  /** Milliseconds between two reads of the replay positions (`limits.readReplicaPoll`). */
  readonly pollMs: number;
  /** A replica lagging more milliseconds than this is skipped (`limits.readReplicaMaxLag`). */
  readonly maxLagMs: number;
}

/** Where one request's reads go: the primary, or one replica. */
interface Source {
  readonly name: string;
  readonly reads: Queryable;
  readonly generations: (sources: GenerationSources) => Promise<GenerationRead>;
  /** Routed reads it answered (generations included). */
  served: number;
}

interface Replica extends Source {
  readonly pool: pg.Pool;
  up: boolean;
  /** Replayed position at the last poll; null: not in recovery (caught up by definition). */
  replayed: bigint | null;
  lagMs: number;
  error?: string;
}

export interface ReadReplicas {
  /** The routed reads: to the request's source. */
  readonly reads: Queryable;
  readonly generations: (sources: GenerationSources) => Promise<GenerationRead>;
  /** After COMMIT on `client`: the request that committed reads, and tells its caller, that position. */
  afterCommit(client: Pick<PoolClient, 'query'>): Promise<void>;
  /** Each connection's state; `primaryUp`: whether the primary answered a ping. */
  health(primaryUp: boolean): Promise<StoreConnectionHealth[]>;
  close(): Promise<void>;
}

const insertPositionSql = 'SELECT pg_current_wal_insert_lsn()::text AS lsn';
// A server in recovery: its replay position; any other (a primary): its own, caught up.
const replicaStateSql = `SELECT pg_is_in_recovery() AS recovery,
  (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text AS lsn`;

/** The primary's `reads`, with replicas beside it. */
export function createReadReplicas(primaryReads: Queryable, options: ReadReplicaOptions): ReadReplicas {
  const { pollMs, maxLagMs } = options;
  const primary: Source = { name: 'primary', reads: primaryReads, generations: postgresGenerations(primaryReads), served: 0 };
  const replicas: Replica[] = options.urls.map((url, n) => {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize,
      application_name: 'cms-server-replica',
      connectionTimeoutMillis: options.connectTimeout,
      query_timeout: options.statementTimeout,
      keepAlive: true,
      keepAliveInitialDelayMillis: options.keepAliveDelay,
      ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
    });
    const connections = connectionsOf(pool);
    pool.on('error', connections.noteError);
    // Unknown until the first poll: skipped until then.
    return { name: `replica ${n + 1} (${hostOf(url)})`, pool, reads: connections.reads, generations: postgresGenerations(connections.reads), served: 0, up: false, replayed: 0n, lagMs: Infinity };
  });

  // The primary's positions, oldest first, kept over a little more than maxLagMs: a replica
  // behind the oldest lags at least that long, so more would change no decision.
  const samples: { at: number; lsn: bigint }[] = [];
  const lagOf = (replayed: bigint | null, now: number): number => {
    if (replayed === null) return 0;
    const ahead = samples.find((sample) => sample.lsn > replayed);
    return ahead === undefined ? 0 : now - ahead.at;
  };

  async function poll(): Promise<void> {
    const now = Date.now();
    try {
      const { rows } = await primaryReads.query<{ lsn: string }>({ text: insertPositionSql });
      samples.push({ at: now, lsn: parseLsn(rows[0]!.lsn)! });
      while (samples.length > 1 && samples[0]!.at < now - maxLagMs - 2 * pollMs) samples.shift();
    } catch {
      // The primary is away: the replicas' lag is measured against the positions known.
    }
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const { rows } = await replica.reads.query<{ recovery: boolean; lsn: string | null }>({ text: replicaStateSql });
          const row = rows[0]!;
          replica.replayed = row.recovery ? (row.lsn === null ? 0n : parseLsn(row.lsn)!) : null;
          replica.lagMs = lagOf(replica.replayed, now);
          replica.up = true;
          delete replica.error;
        } catch (error) {
          replica.up = false;
          replica.error = error instanceof Error ? error.message : String(error);
        }
      }),
    );
  }

  // One poll at a time: one that waits for a replica that does not answer (up to the connect
  // timeout) is not queued behind by others.
  let polling: Promise<void> | undefined;
  const pollOnce = () => {
    polling ??= poll().finally(() => {
      polling = undefined;
    });
  };
  pollOnce();
  const timer = setInterval(pollOnce, pollMs);
  timer.unref();

  const caughtUp = (replica: Replica, after: bigint | undefined): boolean =>
    replica.up && replica.lagMs <= maxLagMs && (replica.replayed === null || after === undefined || replica.replayed >= after);

  const pinned = new WeakMap<ReadPosition, Source>();
  let turn = 0;

  /** The request's source: pinned, or chosen now among the replicas that have its position (in turn). */
  function sourceOf(position: ReadPosition | undefined): Source {
    if (!position?.routable) return primary;
    const held = pinned.get(position);
    if (held === primary) return primary;
    if (held !== undefined && caughtUp(held as Replica, position.after)) return held;
    let chosen: Source = primary;
    // A replica pinned before the request's own commit that has not replayed it: the primary from then on.
    if (held === undefined) {
      const ready = replicas.filter((replica) => caughtUp(replica, position.after));
      if (ready.length > 0) chosen = ready[turn++ % ready.length]!;
    }
    pinned.set(position, chosen);
    return chosen;
  }

  /** Runs `read` on the request's source; a replica found down is skipped and the primary answers. */
  async function onSource<T>(read: (source: Source) => Promise<T>): Promise<T> {
    const position = readPosition();
    const source = sourceOf(position);
    if (source === primary) {
      if (position?.routable) primary.served++;
      return read(primary);
    }
    try {
      const result = await read(source);
      source.served++;
      return result;
    } catch (error) {
      // Down, or a read the replica cancelled for a conflict with its replay (40001): the primary answers.
      const cause = (error as { cause?: unknown }).cause ?? error;
      if (!isConnectionError(cause) && (cause as { code?: unknown }).code !== '40001') throw error;
      (source as Replica).up = false;
      if (position) pinned.set(position, primary);
      return read(primary);
    }
  }

  const reads: Queryable = {
    query<R extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>> {
      return onSource((source) => source.reads.query<R>(config));
    },
  };

  return {
    reads,
    generations: (sources) => onSource((source) => source.generations(sources)),

    async afterCommit(client) {
      // Only a request carries a position to the caller; a job's commit needs no round trip.
      if (readPosition() === undefined) return;
      // Read in the committing session, right after COMMIT: no earlier than the commit's record.
      // Should that fail, any later read of the primary's position is no earlier either; the
      // write itself is stored, so it is never reported failed for this.
      // With the primary gone too, the position is lost: the caller's next reads may then be
      // served by a replica that has not replayed the write yet (until it has).
      const found = await client
        .query<{ lsn: string }>({ text: insertPositionSql })
        .catch(() => primaryReads.query<{ lsn: string }>({ text: insertPositionSql }))
        .catch(() => undefined);
      if (found) noteCommitted(parseLsn(found.rows[0]!.lsn)!);
    },

    // What the last polls found: /health never waits for a replica that does not answer.
    async health(primaryUp) {
      return [
        { role: 'primary', name: primary.name, up: primaryUp, served: primary.served },
        ...replicas.map((replica) => ({
          role: 'replica' as const,
          name: replica.name,
          up: replica.up,
          lagMs: Number.isFinite(replica.lagMs) ? replica.lagMs : null,
          skipped: !caughtUp(replica, undefined),
          served: replica.served,
          ...(replica.error !== undefined ? { error: replica.error } : {}),
        })),
      ];
    },

    async close() {
      clearInterval(timer);
      await polling;
      await Promise.all(replicas.map((replica) => replica.pool.end()));
    },
  };
}

/** Host and port of a URL, for health: never its password. */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}`;
  } catch {
    return 'unparsable URL';
  }
}
