import { createPostgresReviewStore } from './postgres-review-store.js';
import pg from 'pg';
import type { PoolClient, QueryConfig } from 'pg';
import type { StorageAdapter, StorageSession, TransactionOptions } from '../interface/adapter.js';
import type { ChangeLogStore } from '../interface/change-log.js';
import type { DocumentStore } from '../interface/documents.js';
import { VersionedCounts } from '../versioned-counts.js';
import { heldValuesKeyByKey, heldValuesOf } from '../held-values.js';
import { alongLocaleChains } from '../locale-chain-reads.js';
import { autoCommittingSession } from '../auto-committing-session.js';
import { limitedTransactions, withOptionalOptions, type TransactionState } from '../transaction-queue.js';
import { ConflictError, StoreUnavailableError } from '../../errors/app-error.js';
import { connectionsOf, isConnectionError, unavailableIfDisconnected, untimed } from './connections.js';
import { assertSchemaName, runMigrations } from './migrations.js';
import { createPostgresAttachmentStore, holdAttachments } from './postgres-attachment-store.js';
import { createPostgresDocumentStore, holdDocuments } from './postgres-document-store.js';
import { countUpGenerations, postgresGenerations } from './postgres-generations.js';
import { createPostgresIndexPlanStore } from './postgres-index-plan-store.js';
import { createPostgresShareLinkStore } from './postgres-share-link-store.js';
import { createPostgresAccountSecurityStore } from './postgres-account-security-store.js';
import { createPostgresReleaseStore } from './postgres-release-store.js';
import { createPostgresIdempotencyKeyStore } from './postgres-idempotency-key-store.js';
import { createPostgresSetupCodeStore } from './postgres-setup-code-store.js';
import { createPostgresHistoryStore } from './postgres-history-store.js';
import { createPostgresAdvisoryLockStore } from './postgres-advisory-lock-store.js';
import { createPostgresChangeLog } from './postgres-change-log.js';
import { createPostgresPresenceStore } from './postgres-presence-store.js';
import { createPostgresPreferencesStore } from './postgres-preferences-store.js';
import { compileCountQuery } from './postgres-query.js';
import { createPostgresLoginStore, createPostgresTokenStore } from './postgres-login-store.js';
import { createPostgresLoginThrottleStore } from './postgres-login-throttle-store.js';
import { createPostgresApiKeyStore } from './postgres-api-key-store.js';
import { createPostgresWebhookOutbox } from './postgres-webhook-outbox.js';
import { createPostgresScheduleStore } from './postgres-schedule-store.js';
import { createPostgresAuditStore } from './postgres-audit-store.js';
import { statementSource, type Queryable, type StatementSource } from './statements.js';
import { createReadReplicas, type ReadReplicaOptions } from './read-replicas.js';

export interface PostgresAdapterOptions {
  /**
   * `postgres://user:password@host:port/database?…`, as libpq and `pg` read it, plus
   * `pgbouncer=true` for a pooler in transaction mode (`poolerMode`).
   */
  readonly connectionString: string;
  /**
   * The schema the tables live in, created by `migrate` when missing. Default: the first schema
   * of the connection's search_path (usually `public`).
   */
  readonly schema?: string;
  /**
   * The most connections the adapter opens at once; default 10, at least 2. Transactions take
   * one each, up to half of them: the other half stays for reads, those a transaction makes
   * through the adapter itself included, which therefore always find one. (Writers of one
   * document wait for each other holding a connection each: more of them would leave the reads
   * of every other request a connection or two.)
   */
  readonly poolSize?: number;
  /** The generation key that writes to the attachments count up (`StorageAdapter.generation`). */
  readonly attachmentsGenerationKey: string;
  /**
   * Milliseconds a statement waits for a connection, new or from the pool, before it fails with
   * a StoreUnavailableError (503): a server that cannot be reached holds no request longer.
   * Default `defaultConnectTimeout`.
   */
  readonly connectTimeout?: number;
  /**
   * Milliseconds a statement waits for its answer before it fails with a StoreUnavailableError
   * (503) and its connection is closed: a connection whose server died without closing it (a
   * killed primary, a cut network) holds no request longer. Default `defaultStatementTimeout`.
   */
  readonly statementTimeout?: number;
  /** Read replicas (`CMS_DATABASE_READ_URL`) and how they are watched: see read-replicas.ts. */
  readonly readReplicas?: Pick<ReadReplicaOptions, 'urls' | 'pollMs' | 'maxLagMs'>;
}

export const defaultPoolSize = 10;
export const defaultConnectTimeout = 5_000;
export const defaultStatementTimeout = 30_000;

// An idle connection is probed after this long without traffic, so that one whose server went
// away without a word is found by the kernel rather than by the next request that takes it.
const keepAliveDelay = 10_000;

// A work runs again at most this many times in all: each rerun follows a race that another
// writer won, which it does not meet again unless yet another writer wins the next one.
const maxAttempts = 20;

/**
 * The shared store: a PostgreSQL database, which several server processes may use at once.
 *
 * Reads made through the adapter itself run on any connection of a pool and see committed data
 * only. Writes run in transactions (READ COMMITTED) on one connection of the pool each, side by
 * side, in this process and across processes. What keeps them apart:
 * - a transaction holds the documents and attachments its work reads to write back from its
 *   start (`TransactionOptions`, an advisory lock per id held to the end of the transaction):
 *   writes to one document take turns, writes to others go on;
 * - a slug lookup holds its base (locale and base) to the end of the transaction, so writers
 *   of one title take turns picking; the unique index is the guarantee, and a work that picked a
 *   slug another writer took meanwhile (under another base) runs again, and then sees it taken;
 * - a deadlock or a serialization failure runs the work again too;
 * - each generation key is counted at commit, in 16 counters (migration 8), so the writers
 *   of one type do not queue on one counter.
 * Transactions take at most half the pool's connections, the other half staying for reads.
 */
export function createPostgresAdapter(options: PostgresAdapterOptions): StorageAdapter {
  const { schema, poolSize = defaultPoolSize, attachmentsGenerationKey } = options;
  const { connectTimeout = defaultConnectTimeout, statementTimeout = defaultStatementTimeout } = options;
  const { connectionString, transactionPooler } = poolerMode(options.connectionString);
  if (schema !== undefined) assertSchemaName(schema);
  if (!Number.isSafeInteger(poolSize) || poolSize < 2) throw new Error(`Invalid pool size: ${poolSize}`);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    application_name: 'cms-server',
    // A query waits at most this long for a connection, new or from the pool, instead of for
    // ever when the server cannot be reached (ping() then answers false).
    connectionTimeoutMillis: connectTimeout,
    // Measured by pg on this side: a server that no longer answers cannot cancel the statement
    // (statement_timeout), and the error closes the connection (connections.ts).
    query_timeout: statementTimeout,
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAliveDelay,
    // The schema's name is checked above: lowercase letters, digits and "_" only.
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  const connections = connectionsOf(pool);
  // An idle connection that fails (the server restarted) is dropped by the pool, which opens
  // another when one is needed; without a listener the error would end the process.
  pool.on('error', connections.noteError);
  const replicas = options.readReplicas && options.readReplicas.urls.length > 0
    ? createReadReplicas(connections.reads, { ...options.readReplicas, schema, poolSize, connectTimeout, statementTimeout, keepAliveDelay })
    : undefined;
  // Set by close(): transactions asked for later are refused.
  let closed = false;
  let closing: Promise<void> | undefined;

  const transactions = limitedTransactions({
    limit: Math.floor(poolSize / 2),
    run: runTransaction,
    retryable: lostRace,
    maxAttempts,
    retryOnce: (error) => brokeBeforeWork.has(error as object),
  });
  const transaction = withOptionalOptions((options, work) => {
    if (closed) return Promise.reject(new Error('The storage adapter is closed'));
    return transactions.transaction(options, work);
  });

  async function runTransaction<T>(work: (tx: StorageSession) => Promise<T>, state: TransactionState, options: TransactionOptions): Promise<T> {
    const { client, release } = await connections.connect();
    // Set when the connection may be in any state: it is then closed instead of reused.
    let broken: unknown;
    // Which step failed, for what the failure tells: before any statement succeeded nothing
    // was done (BEGIN alone does nothing), while committing the outcome is unknown.
    let step: 'start' | 'work' | 'commit' = 'start';
    const counting: Queryable = {
      async query<R extends pg.QueryResultRow>(config: QueryConfig) {
        const result = await client.query<R>(config);
        step = 'work';
        return result;
      },
    };
    try {
      await client.query('BEGIN').catch((error: Error) => {
        broken = error;
        throw error;
      });
      const statements = statementSource(
        counting,
        () => {
          if (!state.active) throw new Error('The transaction of this storage session has ended');
        },
        !transactionPooler,
      );
      // Counted up at commit, as deferred triggers would: a counter row is held only that long.
      const changedKeys = new Set<string>();
      const changes = createPostgresChangeLog(statements);
      const session = createSession(statements, () => changedKeys.add(attachmentsGenerationKey), changes, true);
      try {
        await holdDocuments(statements, options.lock ?? []);
        await holdAttachments(statements, options.lockAttachments ?? []);
        const result = await work(session);
        await changes.flush(client);
        await countUpGenerations(client, changedKeys);
        step = 'commit';
        await commit(client);
        await replicas?.afterCommit(client);
        return result;
      } catch (error) {
        // A broken connection ends its transaction with it: the server rolls it back.
        if (isConnectionError(error)) broken = error;
        else {
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            broken = rollbackError;
          });
        }
        throw error;
      }
    } catch (error) {
      throw transactionFailure(error, step);
    } finally {
      state.active = false;
      release(broken);
    }
  }

  const readStatements = statementSource(connections.reads, undefined, !transactionPooler);
  const reads = createSession(readStatements, refuseWrite, createPostgresChangeLog(readStatements));
  // Only the lock-free reads of documents and attachments (and their generations) may go to a replica.
  if (replicas) {
    const routed = statementSource(replicas.reads, undefined, !transactionPooler);
    Object.assign(reads, { documents: createPostgresDocumentStore(routed, false), attachments: createPostgresAttachmentStore(routed, refuseWrite) });
  }

  const generations = replicas?.generations ?? postgresGenerations(connections.reads);
  const generation = async (keys: readonly string[]) => (await generations({ keys, versions: [] })).token!;

  async function ping(): Promise<boolean> {
    try {
      const { rows } = await connections.reads.query<{ ok: number }>({ text: 'SELECT 1 AS ok' });
      return rows[0]?.ok === 1;
    } catch {
      return false;
    }
  }

  return {
    ...autoCommittingSession({ ...reads, documents: alongLocaleChains(keepingCounts(reads.documents, generation)) }, transaction),
    capabilities: { sharedAcrossProcesses: true },
    transaction,

    // The migrations take an advisory lock of their own: processes starting together take turns.
    migrate: () => runMigrations(pool, schema),

    generation,
    generations: (sources) => generations(sources),

    async refreshStatistics() {
      // The tables of this store's schema only: a bare ANALYZE would go through every schema of the database.
      const { rows } = await pool.query<{ name: string }>(
        "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
      );
      if (rows.length > 0) await pool.query(untimed(`ANALYZE ${rows.map((row) => row.name).join(', ')}`));
    },

    ping,
    ...(replicas ? { connections: async () => replicas.health(await ping()) } : {}),

    close() {
      // Waits for the transactions already asked for; pool.end() then closes every connection.
      closed = true;
      closing ??= transactions.idle().then(() => Promise.all([pool.end(), replicas?.close()])).then(() => undefined);
      return closing;
    },
  };
}

/**
 * Whether a transaction failed because another writer came first, so that running its work
 * again can succeed: a deadlock (40P01), a serialization failure (40001), or a slug taken
 * meanwhile (the services pick a free slug in the transaction, so a slug conflict means another
 * transaction took it after the pick).
 */
function lostRace(error: unknown): boolean {
  if (error instanceof ConflictError) return error.data.constraint === 'slug';
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

// The failures of transactions whose connection broke before they did anything: their work
// runs again once, at once, on a new connection (`retryOnce` of limitedTransactions).
const brokeBeforeWork = new WeakSet<object>();

/**
 * What a failed transaction throws. A broken connection is a StoreUnavailableError, and when it
 * broke before any statement of the transaction succeeded (BEGIN or the first statement failed:
 * most often a connection the server had closed while it was idle), the transaction is marked to
 * run again once. Never when COMMIT was sent: the server may have committed before the
 * connection broke, and running the work again would then write it twice; the caller is told
 * the outcome is unknown instead.
 */
function transactionFailure(error: unknown, step: 'start' | 'work' | 'commit'): unknown {
  if (!isConnectionError(error)) return error;
  if (step === 'commit') {
    return new StoreUnavailableError('The connection to the database broke during the commit: the write may or may not be stored.', {
      outcome: 'unknown',
      cause: error,
    });
  }
  const unavailable = unavailableIfDisconnected(error) as StoreUnavailableError;
  if (step === 'start') brokeBeforeWork.add(unavailable);
  return unavailable;
}

/**
 * The documents read through the pool, with each count of a type kept while the type's
 * generation stands: a list's total is counted once per write to its type, not per request, for
 * one small read of the generation. The generation is read before the count, so a write landing
 * between them leaves the kept count at the older generation, and the next call counts again.
 * A filtered list's values are read the cheaper of two ways, chosen from those counts (heldValuesOf).
 */
function keepingCounts(documents: DocumentStore, generation: (keys: readonly string[]) => Promise<string>): DocumentStore {
  const kept = new VersionedCounts();
  const keptCounts: DocumentStore = {
    ...documents,
    heldValues: (query, key) => heldValuesOf(documents, (counted) => keptCounts.count(counted), query, key),
    // Key by key: the pool reads them side by side.
    heldValuesOfKeys: (query, keys) => heldValuesKeyByKey(keptCounts, query, keys),
    async count(query) {
      if (query.type === null) return documents.count(query);
      const { sql, params } = compileCountQuery(query);
      const version = await generation([query.type]);
      const known = kept.get(sql, params, version);
      if (known !== undefined) return known;
      const counted = await documents.count(query);
      kept.set(sql, params, version, counted);
      return counted;
    },
  };
  return keptCounts;
}

/**
 * COMMIT in a transaction that a failed statement aborted is answered ROLLBACK, not an error:
 * that is turned into one, so nothing that was meant to be written is reported as written.
 */
async function commit(client: PoolClient): Promise<void> {
  const result = await client.query('COMMIT');
  if (result.command !== 'COMMIT') {
    throw new Error('The transaction was rolled back: one of its statements had failed');
  }
}

/** The reads' session writes nothing: its writes go through transactions (autoCommittingSession). */
function refuseWrite(): never {
  throw new Error('A write outside a transaction');
}

/** `attachmentsChanged`: called by the attachment writes that changed a row. */
function createSession(statements: StatementSource, attachmentsChanged: () => void, changes: ChangeLogStore, inTransaction = false): StorageSession {
  return {
    documents: createPostgresDocumentStore(statements, inTransaction),
    indexPlans: createPostgresIndexPlanStore(statements),
    logins: createPostgresLoginStore(statements),
    setupCodes: createPostgresSetupCodeStore(statements),
    tokens: createPostgresTokenStore(statements),
    attachments: createPostgresAttachmentStore(statements, attachmentsChanged),
    loginThrottle: createPostgresLoginThrottleStore(statements),
    apiKeys: createPostgresApiKeyStore(statements),
    webhooks: createPostgresWebhookOutbox(statements),
    advisoryLocks: createPostgresAdvisoryLockStore(statements),
    history: createPostgresHistoryStore(statements),
    schedules: createPostgresScheduleStore(statements),
    audit: createPostgresAuditStore(statements),
    shareLinks: createPostgresShareLinkStore(statements),
    releases: createPostgresReleaseStore(statements),
    review: createPostgresReviewStore(statements),
    changes,
    presence: createPostgresPresenceStore(statements),
    preferences: createPostgresPreferencesStore(statements),
    idempotencyKeys: createPostgresIdempotencyKeyStore(statements),
    accountSecurity: createPostgresAccountSecurityStore(statements),
  };
}

/**
 * Whether the URL names a pooler in transaction mode (`pgbouncer=true`, the parameter other
 * PostgreSQL clients know), taken out of the URL `pg` reads. Nothing here keeps state in a
 * server session between transactions (advisory locks are transaction locks, settings come
 * with the connection); named prepared statements would, so behind such a pooler none is made.
 */
export function poolerMode(url: string): { connectionString: string; transactionPooler: boolean } {
  const parameter = /([?&])pgbouncer=([^&#]*)&?/;
  const found = parameter.exec(url);
  if (!found) return { connectionString: url, transactionPooler: false };
  const value = decodeURIComponent(found[2]!);
  if (value !== 'true' && value !== 'false') throw new Error(`pgbouncer must be true or false in the database URL, not "${value}"`);
  const connectionString = url.replace(parameter, (_all, separator: string) => separator).replace(/[?&]$/, '');
  return { connectionString, transactionPooler: value === 'true' };
}
