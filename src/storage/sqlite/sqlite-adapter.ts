import { createSqliteReviewStore } from './sqlite-review-store.js';
import { alongLocaleChains } from '../locale-chain-reads.js';
import type BetterSqlite3 from 'better-sqlite3';
import type { StorageAdapter, StorageSession } from '../interface/adapter.js';
import { autoCommittingSession } from '../auto-committing-session.js';
import { createMutex, withOptionalOptions } from '../transaction-queue.js';
import { groupedTransactions } from './write-groups.js';
import { PendingSearchWrites } from './sqlite-document-index.js';
import { runMigrations } from './migrations.js';
import { defaultBusyTimeout, openConnection } from './connection.js';
import { unavailableIfTransient } from './translate-error.js';
import { createSqliteAttachmentStore } from './sqlite-attachment-store.js';
import { createSqliteDocumentStore } from './sqlite-document-store.js';
import { createSqliteLoginStore, createSqliteTokenStore } from './sqlite-login-store.js';
import { createSqliteShareLinkStore } from './sqlite-share-link-store.js';
import { createSqliteAccountSecurityStore } from './sqlite-account-security-store.js';
import { createSqliteReleaseStore } from './sqlite-release-store.js';
import { createSqliteIdempotencyKeyStore } from './sqlite-idempotency-key-store.js';
import { createSqliteSetupCodeStore } from './sqlite-setup-code-store.js';
import { createSqliteHistoryStore } from './sqlite-history-store.js';
import { createSqliteAdvisoryLockStore } from './sqlite-advisory-lock-store.js';
import { createSqliteIndexPlanStore } from './sqlite-index-plan-store.js';
import { createSqliteLoginThrottleStore } from './sqlite-login-throttle-store.js';
import { createSqliteApiKeyStore } from './sqlite-api-key-store.js';
import { createSqliteWebhookOutbox } from './sqlite-webhook-outbox.js';
import { createSqliteScheduleStore } from './sqlite-schedule-store.js';
import { createSqliteAuditStore } from './sqlite-audit-store.js';
import { createSqliteChangeLog } from './sqlite-change-log.js';
import { createSqlitePresenceStore } from './sqlite-presence-store.js';
import { createSqlitePreferencesStore } from './sqlite-preferences-store.js';
import { StatementCache, type StatementSource } from './statement-cache.js';
import { CountsUntilWrite } from './counts-until-write.js';
import { countUpGeneration, GenerationCounters } from './generation-counters.js';
import { withListReads } from './sqlite-list-reads.js';
import { ReadThreads } from './read-threads.js';
import { StatisticsUpkeep, type StatisticsUpkeepOptions } from './statistics-upkeep.js';

/**
 * The embedded store: one SQLite file in WAL mode, for the server processes of one machine.
 *
 * Two connections share the file. Every write runs on the write connection inside a transaction
 * that holds an in-process lock; reads made through the adapter itself run on the read
 * connection. WAL gives that connection the last committed snapshot, so a request never sees
 * another request's half-done transaction, and reads never wait for writes. Several processes
 * (`CMS_WORKERS`) each open their own two: SQLite's file lock serialises their write
 * transactions (`BEGIN IMMEDIATE` waits up to `busy_timeout` for another process's to end,
 * blocking this process meanwhile, which is why transactions never wait on slow work).
 */
export interface SqliteAdapterOptions {
  readonly filename: string;
  /** Called with every statement either connection runs, parameters filled in (tests count them). */
  readonly onStatement?: (sql: string) => void;
  /** False: pages are read through the page cache, one read call each, never memory-mapped (tests count them). */
  readonly memoryMapped?: boolean;
  /**
   * Worker threads for the reads whose cost grows with what they select (ReadThreads); 0, the
   * default, runs them on the read connection like every other read.
   */
  readonly readThreads?: number;
  /** Most transactions committed together (see write-groups.ts); 1, the default, commits each alone. */
  readonly writesPerCommit?: number;
  /** Pages the write-ahead log holds before the commit that fills it copies them into the file (SQLite's default: 1,000). */
  readonly walCheckpointPages?: number;
  /** The generation key that writes to the attachments count up (`StorageAdapter.generation`). */
  readonly attachmentsGenerationKey: string;
  /**
   * Milliseconds a write waits for the file's write lock that another process holds, and any
   * statement for another connection's lock, before it fails with a StoreUnavailableError (503).
   * Default `defaultBusyTimeout`.
   */
  readonly busyTimeout?: number;
  /** When the planner's statistics are looked at while the adapter is open (StatisticsUpkeep); these defaults without. */
  readonly statistics?: Partial<StatisticsUpkeepOptions>;
}

const defaultStatistics: StatisticsUpkeepOptions = { afterRows: 10_000, everyMs: 3_600_000 };

export function createSqliteAdapter(options: SqliteAdapterOptions): StorageAdapter {
  const { writeConnection, readConnection } = openConnections(options);
  const writeStatements = new StatementCache(writeConnection);
  const readStatements = new StatementCache(readConnection);
  const runExclusive = createMutex();
  let closing: Promise<void> | undefined;
  const totalChanges = writeConnection.prepare('SELECT total_changes()').pluck();
  const pendingSearch = new PendingSearchWrites();
  const generations = new GenerationCounters(readStatements);
  const statistics = new StatisticsUpkeep(writeConnection, runExclusive, { ...defaultStatistics, ...options.statistics }, totalChanges.get() as number);

  const busyTimeout = options.busyTimeout ?? defaultBusyTimeout;
  const grouped = groupedTransactions({
    runExclusive,
    maxGroup: options.writesPerCommit ?? 1,
    connection: {
      async begin() {
        if (!writeConnection.open) throw new Error('The storage adapter is closed');
        await beginImmediate(writeConnection, busyTimeout);
      },
      commit() {
        pendingSearch.flush(writeStatements);
        writeConnection.exec('COMMIT');
        generations.committed();
        statistics.committed(totalChanges.get() as number);
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
    sessionFor: (state) => {
      const statements: StatementSource = {
        statement(sql) {
          if (!state.active) throw new Error('The transaction of this storage session has ended');
          return writeStatements.statement(sql);
        },
      };
      return createSession(statements, () => countUpGeneration(statements, options.attachmentsGenerationKey), pendingSearch);
    },
  });

  // A write refused because the file is locked or failed for now is a 503, not a 500.
  const transaction = withOptionalOptions((options, work) =>
    grouped(options, work).catch((error: unknown) => {
      throw unavailableIfTransient(error);
    }));

  // Counts outside transactions are kept until the next write to the file; see CountsUntilWrite.
  const readSession = createSession(readStatements, refuseWrite);
  const counts = new CountsUntilWrite(readStatements);
  const { readThreads = 0 } = options;
  const threads = readThreads > 0
    ? new ReadThreads({ filename: options.filename, memoryMapped: options.memoryMapped !== false, size: readThreads })
    : undefined;
  const reads = { ...readSession, documents: alongLocaleChains(withListReads(readSession.documents, readStatements, counts, threads)) };

  return {
    ...autoCommittingSession(reads, transaction),
    capabilities: { sharedAcrossProcesses: false },
    transaction,

    migrate: () => runExclusive(async () => runMigrations(writeConnection)),

    refreshStatistics: () => runExclusive(async () => statistics.refresh()),

    generation: async (keys) => generations.of(keys),
    generations: async (sources, options) => generations.read(sources, options),

    async ping() {
      try {
        return readStatements.statement('SELECT 1').pluck().get() === 1;
      } catch {
        return false;
      }
    },

    close() {
      statistics.stop();
      closing ??= runExclusive(async () => {
        try {
          // Refreshes the planner's statistics where they went stale, as SQLite advises on close.
          statistics.refresh();
        } finally {
          await threads?.close();
          readConnection.close();
          writeConnection.close();
        }
      });
      return closing;
    },
  };
}

/**
 * Takes the file's write lock. Another process (`CMS_WORKERS`) may hold it: SQLite's own busy
 * wait would sleep with this whole process stopped, reads included, so BEGIN does not wait
 * (`busy_timeout` 0 for it) and the wait happens here, on timers.
 */
async function beginImmediate(connection: BetterSqlite3.Database, busyTimeout: number): Promise<void> {
  const deadline = Date.now() + busyTimeout;
  for (let pause = 1; ; pause = Math.min(pause * 2, 8)) {
    connection.pragma('busy_timeout = 0');
    try {
      connection.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
    } finally {
      connection.pragma(`busy_timeout = ${Math.trunc(busyTimeout)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

function openConnections(options: SqliteAdapterOptions) {
  const { filename } = options;
  if (filename === '' || filename === ':memory:' || filename.startsWith('file::memory:')) {
    // Each connection to an in-memory database would get its own, empty database.
    throw new Error('The SQLite adapter needs a database file; in-memory databases are not supported');
  }
  const writeConnection = openConnection(options);
  try {
    // Only the write connection commits, so only it checkpoints.
    if (options.walCheckpointPages !== undefined) writeConnection.pragma(`wal_autocheckpoint = ${Math.trunc(options.walCheckpointPages)}`);
    const readConnection = openConnection({ ...options, readOnly: true });
    return { writeConnection, readConnection };
  } catch (error) {
    writeConnection.close();
    throw error;
  }
}

/** The read connection writes nothing: writes go through transactions (autoCommittingSession). */
function refuseWrite(): never {
  throw new Error('A write outside a transaction');
}

/** `attachmentsChanged`: called by the attachment writes that changed a row, in their transaction. */
function createSession(statements: StatementSource, attachmentsChanged: () => void, pendingSearch?: PendingSearchWrites): StorageSession {
  return {
    documents: createSqliteDocumentStore(statements, pendingSearch),
    indexPlans: createSqliteIndexPlanStore(statements),
    logins: createSqliteLoginStore(statements),
    setupCodes: createSqliteSetupCodeStore(statements),
    tokens: createSqliteTokenStore(statements),
    attachments: createSqliteAttachmentStore(statements, attachmentsChanged),
    loginThrottle: createSqliteLoginThrottleStore(statements),
    apiKeys: createSqliteApiKeyStore(statements),
    webhooks: createSqliteWebhookOutbox(statements),
    advisoryLocks: createSqliteAdvisoryLockStore(statements),
    history: createSqliteHistoryStore(statements),
    schedules: createSqliteScheduleStore(statements),
    audit: createSqliteAuditStore(statements),
    changes: createSqliteChangeLog(statements),
    shareLinks: createSqliteShareLinkStore(statements),
    releases: createSqliteReleaseStore(statements),
    review: createSqliteReviewStore(statements),
    presence: createSqlitePresenceStore(statements),
    preferences: createSqlitePreferencesStore(statements),
    idempotencyKeys: createSqliteIdempotencyKeyStore(statements),
    accountSecurity: createSqliteAccountSecurityStore(statements),
  };
}
