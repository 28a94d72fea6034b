import Database from './driver.js';
import type BetterSqlite3 from 'better-sqlite3';
import type { StorageAdapter, StorageSession } from '../storage-adapter.js';
import { autoCommittingSession, createMutex } from '../adapter-kit.js';
import { groupedTransactions } from './write-groups.js';
import { PendingSearchWrites } from './sqlite-document-index.js';
import { runMigrations } from './migrations.js';
import { createSqliteAttachmentStore } from './sqlite-attachment-store.js';
import { createSqliteDocumentStore } from './sqlite-document-store.js';
import { createSqliteLoginStore, createSqliteTokenStore } from './sqlite-login-store.js';
import { createSqliteLoginThrottleStore } from './sqlite-login-throttle-store.js';
import { StatementCache, type StatementSource } from './statement-cache.js';
import { CountCache } from './count-cache.js';
import { withListReads } from './sqlite-list-reads.js';

/**
 * The embedded store: one SQLite file in WAL mode, for a single server process.
 *
 * Two connections share the file. Every write runs on the write connection inside a transaction
 * that holds an in-process lock; reads made through the adapter itself run on the read
 * connection. WAL gives that connection the last committed snapshot, so a request never sees
 * another request's half-done transaction, and reads never wait for writes.
 */
export interface SqliteAdapterOptions {
  readonly filename: string;
  /** Called with every statement either connection runs, parameters filled in (tests count them). */
  readonly onStatement?: (sql: string) => void;
  /** False: pages are read through the page cache, one read call each, never memory-mapped (tests count them). */
  readonly memoryMapped?: boolean;
  /** Most transactions committed together (see write-groups.ts); 1, the default, commits each alone. */
  readonly writesPerCommit?: number;
}

export function createSqliteAdapter(options: SqliteAdapterOptions): StorageAdapter {
  const { writeConnection, readConnection } = openConnections(options);
  const writeStatements = new StatementCache(writeConnection);
  const readStatements = new StatementCache(readConnection);
  const runExclusive = createMutex();
  let closing: Promise<void> | undefined;
  const totalChanges = writeConnection.prepare('SELECT total_changes()').pluck();
  const pendingSearch = new PendingSearchWrites();

  const transaction = groupedTransactions({
    runExclusive,
    maxGroup: options.writesPerCommit ?? 1,
    connection: {
      begin() {
        if (!writeConnection.open) throw new Error('The storage adapter is closed');
        writeConnection.exec('BEGIN IMMEDIATE');
      },
      commit() {
        pendingSearch.flush(writeStatements);
        writeConnection.exec('COMMIT');
      },
      rollback() {
        pendingSearch.discard();
        if (writeConnection.inTransaction) writeConnection.exec('ROLLBACK');
      },
      get inTransaction() {
        return writeConnection.inTransaction;
      },
      totalChanges: () => totalChanges.get() as number,
    },
    sessionFor: (scope) =>
      createSession(
        {
          statement(sql) {
            if (!scope.active) throw new Error('The transaction of this storage session has ended');
            return writeStatements.statement(sql);
          },
        },
        pendingSearch,
      ),
  });

  // Counts outside transactions are kept until the next write to the file; see CountCache.
  const readSession = createSession(readStatements);
  const counts = new CountCache(readStatements);
  const reads = { ...readSession, documents: withListReads(readSession.documents, readStatements, counts) };

  return {
    ...autoCommittingSession(reads, transaction),
    capabilities: { sharedAcrossProcesses: false },
    transaction,

    migrate: () => runExclusive(async () => runMigrations(writeConnection)),

    // The read connection never writes, so its data_version moves with every commit made on the
    // file: by the write connection of this process as by any other process (SQLite "PRAGMA
    // data_version": it changes when another connection commits).
    generation: async () => String(readStatements.statement('PRAGMA data_version').pluck().get()),

    async ping() {
      try {
        return readStatements.statement('SELECT 1').pluck().get() === 1;
      } catch {
        return false;
      }
    },

    close() {
      closing ??= runExclusive(async () => {
        try {
          // Refreshes the planner's statistics where they went stale, as SQLite advises on close.
          writeConnection.pragma('optimize');
        } finally {
          readConnection.close();
          writeConnection.close();
        }
      });
      return closing;
    },
  };
}

function openConnections(options: SqliteAdapterOptions) {
  const { filename } = options;
  if (filename === '' || filename === ':memory:' || filename.startsWith('file::memory:')) {
    // Each connection to an in-memory database would get its own, empty database.
    throw new Error('The SQLite adapter needs a database file; in-memory databases are not supported');
  }
  const writeConnection = openConnection(options);
  try {
    const readConnection = openConnection(options);
    readConnection.pragma('query_only = ON');
    return { writeConnection, readConnection };
  } catch (error) {
    writeConnection.close();
    throw error;
  }
}

function openConnection(options: SqliteAdapterOptions): BetterSqlite3.Database {
  const { onStatement } = options;
  const connection = new Database(options.filename, onStatement ? { verbose: (sql?: unknown) => onStatement(String(sql)) } : {});
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  // The default page cache is 2 MiB: a list over a few thousand documents would reread most of
  // its pages from the OS on every request. Memory-mapped reads skip the copy into the cache.
  connection.pragma('cache_size = -65536');
  if (options.memoryMapped !== false) connection.pragma('mmap_size = 268435456');
  connection.pragma('temp_store = MEMORY');
  return connection;
}

function createSession(statements: StatementSource, pendingSearch?: PendingSearchWrites): StorageSession {
  return {
    documents: createSqliteDocumentStore(statements, pendingSearch),
    logins: createSqliteLoginStore(statements),
    tokens: createSqliteTokenStore(statements),
    attachments: createSqliteAttachmentStore(statements),
    loginThrottle: createSqliteLoginThrottleStore(statements),
  };
}
