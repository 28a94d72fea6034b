import { AsyncLocalStorage } from 'node:async_hooks';
import type { StorageAdapter, StorageSession, StoredAttachment } from './storage-adapter.js';

/*
 * What every adapter builds its StorageAdapter from, whatever its database: the session of
 * top-level calls, and the queue its transactions wait in.
 */

type Transaction = StorageAdapter['transaction'];

/** Whether a transaction is still running: its session refuses statements once it is not. */
export interface TransactionScope {
  active: boolean;
}

/** Runs `work` in one database transaction, on the adapter's own connection handling. */
export type RunTransaction = <T>(work: (tx: StorageSession) => Promise<T>, scope: TransactionScope) => Promise<T>;

/**
 * The adapter's `transaction` for a database that lets transactions run side by side: at most
 * `limit` at once, the others waiting in call order. A work whose transaction lost a race
 * (`retryable`) runs again from the start, in a new transaction, up to `maxAttempts` times in all,
 * after a short random pause that keeps the losers of one race from meeting again. A transaction
 * or a top-level write started from inside another's work is refused: it could wait for a lock
 * that work holds. `idle` settles once every transaction asked for has ended.
 */
export function limitedTransactions(args: {
  readonly limit: number;
  readonly run: RunTransaction;
  readonly retryable: (error: unknown) => boolean;
  readonly maxAttempts: number;
}): { transaction: Transaction; idle(): Promise<void> } {
  const { limit, run, retryable, maxAttempts } = args;
  const scopes = transactionScopes();
  const waiting: (() => void)[] = [];
  const whenIdle: (() => void)[] = [];
  let running = 0;

  const acquire = async () => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  // The place goes straight to the next in line, so a newcomer cannot overtake it.
  const release = () => {
    const next = waiting.shift();
    if (next) return next();
    running--;
    if (running === 0) for (const resolve of whenIdle.splice(0)) resolve();
  };

  const transaction: Transaction = async (work) => {
    scopes.refuseNested();
    await acquire();
    try {
      for (let attempt = 1; ; attempt++) {
        const scope = { active: true };
        try {
          return await scopes.run(scope, () => run(work, scope));
        } catch (error) {
          if (attempt >= maxAttempts || !retryable(error)) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
      }
    } finally {
      release();
    }
  };

  return {
    transaction,
    idle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => whenIdle.push(resolve))),
  };
}

/**
 * Which transaction's work the current code runs in, so that a transaction started from inside
 * another's work is refused: it would wait for the lock that work holds.
 */
export function transactionScopes(): {
  run<T>(scope: TransactionScope, work: () => Promise<T>): Promise<T>;
  refuseNested(): void;
} {
  const current = new AsyncLocalStorage<TransactionScope>();
  return {
    run: (scope, work) => current.run(scope, work),
    refuseNested() {
      if (current.getStore()?.active) {
        throw new Error('Nested transaction: write through the session given to the transaction');
      }
    },
  };
}

/** Reads go to `read`; each write runs in a transaction of its own. */
export function autoCommittingSession(read: StorageSession, transaction: Transaction): StorageSession {
  return {
    documents: {
      find: (query) => read.documents.find(query),
      count: (query) => read.documents.count(query),
      distinctValues: (query, key) => read.documents.distinctValues(query, key),
      slugsLike: (args) => read.documents.slugsLike(args),
      versionsAfter: (type, afterId, limit) => read.documents.versionsAfter(type, afterId, limit),
      indexedBy: (type) => read.documents.indexedBy(type),
      markIndexed: (type, digest) => transaction((tx) => tx.documents.markIndexed(type, digest)),
      // A lock lasts as long as its transaction: a write of its own would hold it for nothing.
      lock: async () => undefined,
      insert: (doc, index) => transaction((tx) => tx.documents.insert(doc, index)),
      update: (doc, index) => transaction((tx) => tx.documents.update(doc, index)),
      remove: (type, ids) => transaction((tx) => tx.documents.remove(type, ids)),
    },
    logins: {
      get: (userId) => read.logins.get(userId),
      findByName: (name) => read.logins.findByName(name),
      loginsAfter: (afterUserId, limit) => read.logins.loginsAfter(afterUserId, limit),
      put: (login) => transaction((tx) => tx.logins.put(login)),
      remove: (userId) => transaction((tx) => tx.logins.remove(userId)),
      addSetupCode: (digest) => transaction((tx) => tx.logins.addSetupCode(digest)),
      hasSetupCodes: () => read.logins.hasSetupCodes(),
      takeSetupCode: (digest) => transaction((tx) => tx.logins.takeSetupCode(digest)),
    },
    tokens: {
      get: (token) => read.tokens.get(token),
      put: (token) => transaction((tx) => tx.tokens.put(token)),
      remove: (token) => transaction((tx) => tx.tokens.remove(token)),
      removeForUser: (userId) => transaction((tx) => tx.tokens.removeForUser(userId)),
    },
    attachments: {
      find: (ids) => read.attachments.find(ids),
      insert: (record, uploadedBy) => transaction((tx) => tx.attachments.insert(record, uploadedBy)),
      uploaders: (ids) => read.attachments.uploaders(ids),
      attachmentsAfter: (afterId, limit) => read.attachments.attachmentsAfter(afterId, limit),
      restore: (attachment, readable, uploadedBy) => transaction((tx) => tx.attachments.restore(attachment, readable, uploadedBy)),
      update: (record) => transaction((tx) => tx.attachments.update(record)),
      setUsage: (docVersionId, ids, archived) => transaction((tx) => tx.attachments.setUsage(docVersionId, ids, archived)),
      setReadable: (ids, readable) => transaction((tx) => tx.attachments.setReadable(ids, readable)),
      fileStates: (ids) => read.attachments.fileStates(ids),
      unsettledFiles: (limit) => read.attachments.unsettledFiles(limit),
      markFiles: (id, readable) => transaction((tx) => tx.attachments.markFiles(id, readable)),
      findUnused: (before, limit) => read.attachments.findUnused(before, limit),
      removeUnused: (id, before) => transaction((tx) => tx.attachments.removeUnused(id, before)),
      lock: async () => undefined,
    },
    loginThrottle: {
      lockedUntil: (keys, now) => read.loginThrottle.lockedUntil(keys, now),
      take: (keys, now) => transaction((tx) => tx.loginThrottle.take(keys, now)),
      giveBack: (key, now) => transaction((tx) => tx.loginThrottle.giveBack(key, now)),
      clear: (key) => transaction((tx) => tx.loginThrottle.clear(key)),
    },
    apiKeys: {
      insert: (key) => transaction((tx) => tx.apiKeys.insert(key)),
      findByDigest: (digest) => read.apiKeys.findByDigest(digest),
      list: () => read.apiKeys.list(),
      remove: (id) => transaction((tx) => tx.apiKeys.remove(id)),
      markUsed: (id, usedAt) => transaction((tx) => tx.apiKeys.markUsed(id, usedAt)),
    },
    webhooks: {
      enqueue: (deliveries, now) => transaction((tx) => tx.webhooks.enqueue(deliveries, now)),
      claim: (args) => transaction((tx) => tx.webhooks.claim(args)),
      record: (attempt) => transaction((tx) => tx.webhooks.record(attempt)),
      list: (args) => read.webhooks.list(args),
      counts: () => read.webhooks.counts(),
      retry: (id, now) => transaction((tx) => tx.webhooks.retry(id, now)),
      prune: (before, limit) => transaction((tx) => tx.webhooks.prune(before, limit)),
    },
  };
}

/** Attachments in bytewise `_id` order, as the databases order them (ids are ASCII). */
export function inIdOrder(attachments: StoredAttachment[]): StoredAttachment[] {
  return attachments.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

/** Runs tasks one at a time, in call order, whether earlier ones succeed or fail. */
export type Mutex = <T>(task: () => Promise<T>) => Promise<T>;

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const result = tail.then(task);
    tail = result.catch(() => undefined);
    return result;
  };
}
