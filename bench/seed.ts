/**
 * The preparation step: fills a fresh store through the project's own insert operation, in the
 * bench's process, without HTTP. Two shortcuts, both outside the operations' rules: inserts join
 * one transaction per batch of 500 (the insert opens one of its own; here the store's
 * `transaction` joins the batch's), and the slug uniqueness scan answers "none taken" because every
 * seeded title, so every slug, is distinct. Everything else (conversion, filter index, search
 * texts, draft and published versions) is the operation's own insert.
 */
import { loadAppConfig } from '../src/load-app-config.js';
import { createStorage } from '../src/storage/create-storage.js';
import { createFieldTypeRegistry } from '../src/content/fields/registry.js';
import { buildDocumentOperations } from '../src/content-services.js';
import { reindexStaleTypes } from '../src/content/indexing/reindex.js';
import type { Caller } from '../src/content/documents/caller.js';
import type { DocumentStore, StorageAdapter, StorageSession } from '../src/storage/storage-adapter.js';
import { articleBody } from './corpus.js';
import { withOptionalOptions } from '../src/storage/transaction-queue.js';
import { attachmentsGenerationKey } from '../src/content/generation-keys.js';

const admin: Caller = { principal: { kind: 'apiKey', role: 'admin', userId: null, title: null, username: null } };
// The seed holds no attachments and no passwords.
const noAttachments = { present: () => ({}), presentCropped: () => ({}), settle: async () => undefined, makeCrop: async () => false };
const noPasswords = { hash: async () => Promise.reject(new Error('the bench seeds no passwords')) };
const batchSize = 500;

export interface Seeded {
  /** cmsDocIds of the articles, in insert order. */
  readonly articleIds: string[];
  /** cmsDocIds of the authors the articles relate to. */
  readonly authorIds: string[];
  readonly seconds: number;
}

/** The store as the operations see it while seeding: every read and write goes to the batch's transaction. */
function batchedStorage(storage: StorageAdapter): { adapter: StorageAdapter; batch<T>(work: () => Promise<T>): Promise<T> } {
  let tx: StorageSession | undefined;
  const current = () => tx ?? storage;
  const documents = (): DocumentStore => {
    const store = current().documents;
    return new Proxy(store, {
      get: (target, key) => (key === 'slugsLike' ? async () => [] : (Reflect.get(target, key) as () => unknown).bind(target)),
    });
  };
  const session: StorageSession = {
    get documents() {
      return documents();
    },
    get indexPlans() {
      return current().indexPlans;
    },
    get logins() {
      return current().logins;
    },
    get accountSecurity() {
      return current().accountSecurity;
    },
    get audit() {
      return current().audit;
    },
    get releases() {
      return current().releases;
    },
    get review() {
      return current().review;
    },
    get changes() {
      return current().changes;
    },
    get idempotencyKeys() {
      return current().idempotencyKeys;
    },
    get presence() {
      return current().presence;
    },
    get preferences() {
      return current().preferences;
    },
    get setupCodes() {
      return current().setupCodes;
    },
    get advisoryLocks() {
      return current().advisoryLocks;
    },
    get history() {
      return current().history;
    },
    get schedules() {
      return current().schedules;
    },
    get shareLinks() {
      return current().shareLinks;
    },
    get tokens() {
      return current().tokens;
    },
    get attachments() {
      return current().attachments;
    },
    get loginThrottle() {
      return current().loginThrottle;
    },
    get apiKeys() {
      return current().apiKeys;
    },
    get webhooks() {
      return current().webhooks;
    },
  };
  const adapter: StorageAdapter = Object.assign(Object.create(session) as StorageSession, {
    capabilities: storage.capabilities,
    migrate: () => storage.migrate(),
    transaction: withOptionalOptions((_options, work) => work(session)),
    ping: () => storage.ping(),
    refreshStatistics: () => storage.refreshStatistics(),
    generation: (keys: readonly string[]) => storage.generation(keys),
    generations: (...args: Parameters<StorageAdapter['generations']>) => storage.generations(...args),
    close: () => storage.close(),
  });
  return {
    adapter,
    batch: (work) =>
      storage.transaction(async (batchTx) => {
        tx = batchTx;
        try {
          return await work();
        } finally {
          tx = undefined;
        }
      }),
  };
}

/** Inserts 50 authors and `count` articles into the store that `env` names. */
export async function seed(env: Record<string, string>, count: number, progress: (done: number) => void): Promise<Seeded> {
  const started = performance.now();
  const config = await loadAppConfig({ env, cwd: env.CMS_DATA_DIR });
  const storage = await createStorage(config.databaseUrl, { poolSize: config.databasePoolSize, attachmentsGenerationKey });
  await storage.migrate();
  try {
    // The store is empty: this only records the index plans, as the server's first start would.
    await reindexStaleTypes({ config, storage, fieldTypes: createFieldTypeRegistry() });
    const { adapter, batch } = batchedStorage(storage);
    const documents = buildDocumentOperations({ config, storage: adapter, fieldTypes: createFieldTypeRegistry(), attachments: noAttachments, passwordHasher: noPasswords });
    const insert = async (type: string, body: Record<string, unknown>) => String((await documents.insert(admin, type, body)).document._id).split(':')[0];
    const authorIds: string[] = [];
    await batch(async () => {
      for (let n = 0; n < 50; n++) authorIds.push(await insert('author', { title: `Author ${n}`, bio: `Writes about ${n}` }));
    });
    const articleIds: string[] = [];
    for (let from = 0; from < count; from += batchSize) {
      await batch(async () => {
        for (let n = from; n < Math.min(count, from + batchSize); n++) articleIds.push(await insert('article', articleBody(n, authorIds)));
      });
      if ((from + batchSize) % 10_000 === 0) progress(from + batchSize);
    }
    return { articleIds, authorIds, seconds: (performance.now() - started) / 1000 };
  } finally {
    await storage.close();
  }
}
