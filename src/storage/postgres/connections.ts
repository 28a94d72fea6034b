import type pg from 'pg';
import type { PoolClient, QueryConfig } from 'pg';
import { StoreUnavailableError } from '../../errors/app-error.js';
import type { Queryable } from './statements.js';

/*
 * How the adapter meets a PostgreSQL that goes away and comes back (a restart, a failover, a
 * network cut): every such failure leaves the adapter as a StoreUnavailableError (503 with
 * Retry-After), and a statement that found its connection dead runs once more on a new one.
 */

// Socket errors of a connection that could not be made or broke (`localhost` may fail on two
// addresses at once: an AggregateError holds them).
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

// SQLSTATEs of a server that ends or refuses sessions: 57P01 admin_shutdown (a restart, or
// pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or stopping),
// 57P05 idle_session_timeout, 53300 too_many_connections, 25006 read_only_sql_transaction (a
// connection that reached a standby, or a primary demoted by a failover: a new one reaches the
// new primary). Class 08 (connection exception) comes
// from the server and from PgBouncer (08P01 "server conn crashed?", "server login has been failing").
const serverCodes = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '25006']);

// What pg says when a statement's answer did not come within `query_timeout` (the adapter's
// statement timeout): the connection is most likely half dead (its server killed without a reset
// reaching us), and in any case it still runs a statement whose answer would come to the next
// one, so it is closed like a broken one.
const statementTimeoutMessage = 'Query read timeout';

// What pg and pg-pool say, without a code, when a socket ends under them or a connection does not
// come within `connectionTimeoutMillis`.
const driverMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  statementTimeoutMessage,
]);

/** Whether `error` says the connection to PostgreSQL could not be made, or broke. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof AggregateError && error.errors.some(isConnectionError)) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (socketCodes.has(code) || serverCodes.has(code) || code.startsWith('08'))) return true;
  return driverMessages.has(error.message);
}

/**
 * A statement exempt from the pool's statement timeout (`query_timeout`): the migrations and
 * ANALYZE, whose time grows with the data and which no request waits for. (pg takes no 0 for
 * "none" per statement, and a timer cannot be longer than this.)
 */
export function untimed(text: string, values?: unknown[]): QueryConfig {
  const config: QueryConfig & { query_timeout: number } = { text, values, query_timeout: 2 ** 31 - 1 };
  return config;
}

/** Whether `error` is a statement that waited its whole statement timeout for an answer. */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === statementTimeoutMessage;
}

/** `error` as a StoreUnavailableError when it is a connection error; any other unchanged. */
export function unavailableIfDisconnected(error: unknown): unknown {
  if (!isConnectionError(error)) return error;
  return new StoreUnavailableError('The database does not answer; try again shortly.', { cause: error });
}

/** A connection of the pool, taken by `connect`: give it back with `release` once. */
export interface Lease {
  readonly client: PoolClient;
  /** `error`: what the connection met, which closes it instead of pooling it (it may be in any state). */
  release(error?: unknown): void;
}

/** The adapter's connections: the pool behind what notices broken ones. */
export interface Connections {
  /**
   * A connection opened after the last connection error this process met: that error usually
   * means the server went away, and the other connections of the time with it, so those still
   * idle in the pool are closed as they come out instead of failing a request each. Throws a
   * StoreUnavailableError when none can be had (refused, or not within the connect timeout).
   */
  connect(): Promise<Lease>;
  /**
   * Reads outside transactions. A read that failed because its connection broke runs once
   * more on a new connection: it changed nothing, and the break was most often an idle
   * connection the server had closed (a restart, an idle timeout) that is not noticed until used.
   * Not one that waited out its statement timeout: a second wait would hold the request twice
   * as long.
   */
  readonly reads: Queryable;
  /** Notes an error a connection met: a connection error retires the connections open now. */
  noteError(error: unknown): void;
}

export function connectionsOf(pool: pg.Pool): Connections {
  // The connections opened before the last connection error have a lower era.
  const eraOf = new WeakMap<PoolClient, number>();
  let era = 0;
  pool.on('connect', (client) => eraOf.set(client, era));

  const noteError = (error: unknown) => {
    if (isConnectionError(error)) era++;
  };

  async function connect(): Promise<Lease> {
    const since = era;
    for (;;) {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        noteError(error);
        throw unavailableIfDisconnected(error);
      }
      if ((eraOf.get(client) ?? since) >= since) return lease(client);
      client.release(true);
    }
  }

  // A connection that breaks while lent out emits `error` (the pool listens only while it is
  // idle): without a listener that would end the process. The statement running on it fails too.
  function lease(client: PoolClient): Lease {
    client.on('error', noteError);
    return {
      client,
      release(error) {
        client.off('error', noteError);
        noteError(error);
        client.release(error !== undefined);
      },
    };
  }

  const reads: Queryable = {
    async query(config) {
      for (let attempt = 1; ; attempt++) {
        const { client, release } = await connect();
        try {
          const result = await client.query(config);
          release();
          return result;
        } catch (error) {
          release(error);
          if (attempt === 2 || !isConnectionError(error) || isStatementTimeout(error)) throw unavailableIfDisconnected(error);
        }
      }
    },
  };

  return { connect, reads, noteError };
}
