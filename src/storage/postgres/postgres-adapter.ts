import pg from 'pg';
import type { PoolClient } from 'pg';
import type { DocumentStore, StorageAdapter, StorageSession } from '../storage-adapter.js';
import { KeptCounts } from '../kept-counts.js';
import { autoCommittingSession, createMutex, queuedTransactions, type TransactionScope } from '../adapter-kit.js';
import { assertSchemaName, runMigrations, writerLockKey } from './migrations.js';
import { createPostgresAttachmentStore } from './postgres-attachment-store.js';
import { createPostgresDocumentStore } from './postgres-document-store.js';
import { postgresGenerations } from './postgres-generations.js';
import { compileCountQuery } from './postgres-query.js';
import { createPostgresLoginStore, createPostgresTokenStore } from './postgres-login-store.js';
import { createPostgresLoginThrottleStore } from './postgres-login-throttle-store.js';
import { statementSource, type StatementSource } from './statements.js';

export interface PostgresAdapterOptions {
  /** `postgres://user:password@host:port/database?…`, as libpq and `pg` read it. */
  readonly connectionString: string;
  /**
   * The schema the tables live in, created by `migrate` when missing. Default: the first schema
   * of the connection's search_path (usually `public`).
   */
  readonly schema?: string;
  /**
   * The most connections the adapter opens at once; default 10, at least 2: a transaction holds
   * one while the reads it makes through the adapter itself need another.
   */
  readonly poolSize?: number;
}

export const defaultPoolSize = 10;

// Begins a write transaction and waits for the writer lock of the schema: one round trip.
const beginSql = `BEGIN; SELECT pg_advisory_xact_lock(${writerLockKey}, hashtext(coalesce(current_schema(), '')))`;

/**
 * The shared store: a PostgreSQL database, which several server processes may use at once.
 *
 * Reads made through the adapter itself run on any connection of a pool and see committed data
 * only. Writes run in transactions on one connection of the pool each, and one writer at a time
 * per schema: every transaction first takes an advisory lock, held until it ends. That is what
 * the services were written against (the SQLite adapter has a single writer too): a transaction
 * reads a document and writes it back, or picks a free slug, without another writer slipping in
 * between, in this process or another. Reads never wait for it.
 *
 * In one process the transactions also queue before they take a connection, so that at most
 * one connection waits for the lock and the others stay free for reads, reads made from inside a
 * transaction included.
 */
export function createPostgresAdapter(options: PostgresAdapterOptions): StorageAdapter {
  const { connectionString, schema, poolSize = defaultPoolSize } = options;
  if (schema !== undefined) assertSchemaName(schema);
  if (!Number.isSafeInteger(poolSize) || poolSize < 2) throw new Error(`Invalid pool size: ${poolSize}`);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    application_name: 'cms-server',
    // A query waits at most this long for a connection, new or from the pool, instead of for
    // ever when the server cannot be reached (ping() then answers false).
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    // The schema's name is checked above: lowercase letters, digits and "_" only.
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle connection that fails (the server restarted) is dropped by the pool, which opens
  // another when one is needed; without a listener the error would end the process.
  pool.on('error', () => undefined);
  const runExclusive = createMutex();
  let closing: Promise<void> | undefined;
  // Set once the transactions queued before close() have run.
  let ended = false;

  const transaction = queuedTransactions(runExclusive, runTransaction);

  async function runTransaction<T>(work: (tx: StorageSession) => Promise<T>, scope: TransactionScope): Promise<T> {
    if (ended) throw new Error('The storage adapter is closed');
    const client = await pool.connect();
    // Set when the connection may be in any state: it is then closed instead of reused.
    let broken: Error | undefined;
    try {
      await client.query(beginSql).catch((error: Error) => {
        broken = error;
        throw error;
      });
      const session = createSession(statementSource(client, () => {
        if (!scope.active) throw new Error('The transaction of this storage session has ended');
      }));
      try {
        const result = await work(session);
        await commit(client);
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      scope.active = false;
      client.release(broken);
    }
  }

  const readStatements = statementSource(pool);
  const reads = createSession(readStatements);

  const generation = postgresGenerations(pool);

  return {
    ...autoCommittingSession({ ...reads, documents: keepingCounts(reads.documents, generation) }, transaction),
    capabilities: { sharedAcrossProcesses: true },
    transaction,

    migrate: () => runExclusive(() => runMigrations(pool, schema)),

    generation,

    async ping() {
      try {
        const { rows } = await pool.query<{ ok: number }>('SELECT 1 AS ok');
        return rows[0]?.ok === 1;
      } catch {
        return false;
      }
    },

    close() {
      // Waits for the transactions already asked for; pool.end() then closes every connection.
      closing ??= runExclusive(async () => {
        ended = true;
        await pool.end();
      });
      return closing;
    },
  };
}

/**
 * The documents read through the pool, with each count of a type kept while the type's
 * generation stands: a list's total is counted once per write to its type, not per request, for
 * one small read of the generation. The generation is read before the count, so a write landing
 * between them leaves the kept count at the older generation, and the next call counts again.
 */
function keepingCounts(documents: DocumentStore, generation: (scopes: readonly string[]) => Promise<string>): DocumentStore {
  const kept = new KeptCounts();
  return {
    ...documents,
    async count(query) {
      if (query.type === undefined) return documents.count(query);
      const { sql, params } = compileCountQuery(query);
      const version = await generation([query.type]);
      const known = kept.get(sql, params, version);
      if (known !== undefined) return known;
      const counted = await documents.count(query);
      kept.set(sql, params, version, counted);
      return counted;
    },
  };
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

function createSession(statements: StatementSource): StorageSession {
  return {
    documents: createPostgresDocumentStore(statements),
    logins: createPostgresLoginStore(statements),
    tokens: createPostgresTokenStore(statements),
    attachments: createPostgresAttachmentStore(statements),
    loginThrottle: createPostgresLoginThrottleStore(statements),
  };
}
