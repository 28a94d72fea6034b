import type { StorageAdapter, StorageSession } from './interface/adapter.js';

type Transaction = StorageAdapter['transaction'];

/** The adapter's own stores: reads go to `read`; each write runs in a transaction of its own. */
export function autoCommittingSession(read: StorageSession, transaction: Transaction): StorageSession {
  return {
    documents: {
      find: (query) => read.documents.find(query),
      count: (query) => read.documents.count(query),
      distinctValues: (query, key) => read.documents.distinctValues(query, key),
      heldValues: (query, key) => read.documents.heldValues(query, key),
      heldValuesOfKeys: (query, keys) => read.documents.heldValuesOfKeys(query, keys),
      slugsLike: (args) => read.documents.slugsLike(args),
      versionsAfter: (type, afterId, limit) => read.documents.versionsAfter(type, afterId, limit),
      insert: (doc, index) => transaction((tx) => tx.documents.insert(doc, index)),
      update: (doc, index) => transaction((tx) => tx.documents.update(doc, index)),
      remove: (type, ids) => transaction((tx) => tx.documents.remove(type, ids)),
      relateBack: (type, sourceDocId, changes, stamp) => transaction((tx) => tx.documents.relateBack(type, sourceDocId, changes, stamp)),
      // A hold lasts as long as its transaction: outside one, there is nothing to hold.
      hold: async () => undefined,
    },
    logins: {
      get: (userId) => read.logins.get(userId),
      findByName: (name) => read.logins.findByName(name),
      loginsAfter: (afterUserId, limit) => read.logins.loginsAfter(afterUserId, limit),
      put: (login) => transaction((tx) => tx.logins.put(login)),
      remove: (userId) => transaction((tx) => tx.logins.remove(userId)),
    },
    advisoryLocks: {
      get: (versionId) => read.advisoryLocks.get(versionId),
      put: (lock) => transaction((tx) => tx.advisoryLocks.put(lock)),
      release: (versionId, tabId) => transaction((tx) => tx.advisoryLocks.release(versionId, tabId)),
      removeAll: (versionIds) => transaction((tx) => tx.advisoryLocks.removeAll(versionIds)),
    },
    setupCodes: {
      add: (digest) => transaction((tx) => tx.setupCodes.add(digest)),
      any: () => read.setupCodes.any(),
      take: (digest) => transaction((tx) => tx.setupCodes.take(digest)),
    },
    presence: {
      announce: (entry) => transaction((tx) => tx.presence.announce(entry)),
      leave: (userId, tabId) => transaction((tx) => tx.presence.leave(userId, tabId)),
      presentOn: (type, docId, locale, now) => read.presence.presentOn(type, docId, locale, now),
      present: (now, limit) => read.presence.present(now, limit),
      counts: (userId, tabId, now) => read.presence.counts(userId, tabId, now),
      prune: (now) => transaction((tx) => tx.presence.prune(now)),
    },
    preferences: {
      get: (userId) => read.preferences.get(userId),
      put: (preferences) => transaction((tx) => tx.preferences.put(preferences)),
      remove: (userId) => transaction((tx) => tx.preferences.remove(userId)),
    },
    idempotencyKeys: {
      claim: (record, now) => transaction((tx) => tx.idempotencyKeys.claim(record, now)),
      find: (scope, key, now) => read.idempotencyKeys.find(scope, key, now),
      keepAnswer: (scope, key, fingerprint, answer) => transaction((tx) => tx.idempotencyKeys.keepAnswer(scope, key, fingerprint, answer)),
      prune: (now, limit) => transaction((tx) => tx.idempotencyKeys.prune(now, limit)),
    },
    shareLinks: {
      insert: (link) => transaction((tx) => tx.shareLinks.insert(link)),
      findByDigest: (digest) => read.shareLinks.findByDigest(digest),
      listLive: (versionId, now) => read.shareLinks.listLive(versionId, now),
      remove: (versionId, id) => transaction((tx) => tx.shareLinks.remove(versionId, id)),
      removeAll: (versionId, expiredAt) => transaction((tx) => tx.shareLinks.removeAll(versionId, expiredAt)),
      linksAfter: (afterId, limit) => read.shareLinks.linksAfter(afterId, limit),
    },
    indexPlans: {
      digestOf: (type) => read.indexPlans.digestOf(type),
      record: (type, digest) => transaction((tx) => tx.indexPlans.record(type, digest)),
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
      // A hold lasts as long as its transaction: outside one, a read holds nothing.
      findHeld: (ids) => read.attachments.find(ids),
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
    history: {
      append: (entry) => transaction((tx) => tx.history.append(entry)),
      latest: (scope) => read.history.latest(scope),
      merge: (scope, id, change) => transaction((tx) => tx.history.merge(scope, id, change)),
      list: (scope, page) => read.history.list(scope, page),
      get: (scope, id) => read.history.get(scope, id),
      prune: (scope, rule) => transaction((tx) => tx.history.prune(scope, rule)),
      removeDocument: (type, docId, locales) => transaction((tx) => tx.history.removeDocument(type, docId, locales)),
      entriesAfter: (afterSeq, limit) => read.history.entriesAfter(afterSeq, limit),
    },
    audit: {
      append: (records) => transaction((tx) => tx.audit.append(records)),
      list: (query, page) => read.audit.list(query, page),
      count: (query) => read.audit.count(query),
      after: (afterSeq, limit) => read.audit.after(afterSeq, limit),
      prune: (args) => transaction((tx) => tx.audit.prune(args)),
    },
    changes: {
      append: (entries) => transaction((tx) => tx.changes.append(entries)),
      after: (afterSeq, limit) => read.changes.after(afterSeq, limit),
      bounds: () => read.changes.bounds(),
      prune: (before, limit) => transaction((tx) => tx.changes.prune(before, limit)),
      // Made by the first reader on PostgreSQL: a write, never sent to a replica.
      signingKey: () => transaction((tx) => tx.changes.signingKey()),
      prunedThrough: () => read.changes.prunedThrough(),
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
    schedules: {
      put: (schedule, status) => transaction((tx) => tx.schedules.put(schedule, status)),
      remove: (key) => transaction((tx) => tx.schedules.remove(key)),
      claimDue: (args) => transaction((tx) => tx.schedules.claimDue(args)),
      anyDue: (now) => read.schedules.anyDue(now),
      complete: (key, token) => transaction((tx) => tx.schedules.complete(key, token)),
      fail: (key, token) => transaction((tx) => tx.schedules.fail(key, token)),
      setUnreviewedChange: (key, change) => transaction((tx) => tx.schedules.setUnreviewedChange(key, change)),
      soonestPending: (args) => read.schedules.soonestPending(args),
      schedulesAfter: (after, limit) => read.schedules.schedulesAfter(after, limit),
      restore: (schedule) => transaction((tx) => tx.schedules.restore(schedule)),
    },
  };
}

