import assert from 'node:assert/strict';
import { loadAppConfig } from '../../src/load-app-config.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { buildDocumentOperations } from '../../src/content-services.js';
import { reindexStaleTypes } from '../../src/content/indexing/reindex.js';
import { DocumentIndexer } from '../../src/content/indexing/document-indexer.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';
import { newId } from '../../src/core/ids.js';
import { slugify, sortify } from '../../src/core/text.js';
import type { Caller } from '../../src/content/documents/caller.js';
import type { StoredDocument } from '../../src/storage/storage-adapter.js';

const admin: Caller = { principal: { kind: 'apiKey', role: 'admin', userId: null, title: null, username: null } };
// The copies hold no attachments and no passwords.
const noAttachments = { present: () => ({}), presentCropped: () => ({}), settle: async () => undefined, makeCrop: async () => false };
const noPasswords = { hash: async () => Promise.reject(new Error('the bulk seed sets no passwords')) };

export interface BulkSeedOptions {
  /** The app's configuration and environment (CMS_DATA_DIR names the store), as the server will load them. */
  readonly config: Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly type: string;
  readonly count: number;
  /** The n-th copy's title (distinct per copy: its slug comes from it) and the stored fields it changes. */
  readonly copy: (n: number) => { readonly title: string; readonly fields?: Record<string, unknown> };
  /** The document copied, as a client posts it (its title is replaced per copy). */
  readonly body?: Record<string, unknown>;
}

/**
 * Fills a fresh store with `count` documents of one type in seconds, before the server starts:
 * the tests that measure the admin at 100,000 documents cannot wait for 100,000 inserts through
 * the operations (about 1,000 a second, bench/NOTES.md). One document goes through the insert
 * operation as a draft (conversion, defaults); its stored version is then copied at the store
 * level, each copy with ids, title and slug of its own and indexed again by the content layer's
 * indexer, all in one transaction (about 6,000 copies a second on the CI
 * machine). Answers how long it took.
 */
export async function seedCopies(options: BulkSeedOptions): Promise<{ seconds: number }> {
  const started = performance.now();
  const config = await loadAppConfig({ config: options.config, env: options.env, cwd: options.env.CMS_DATA_DIR });
  const storage = await createStorage(config.databaseUrl, { attachmentsGenerationKey });
  try {
    await storage.migrate();
    const fieldTypes = createFieldTypeRegistry();
    // The store is empty: this records the index plans, so the server's start reindexes nothing.
    await reindexStaleTypes({ config, storage, fieldTypes });
    const documents = buildDocumentOperations({ config, storage, fieldTypes, attachments: noAttachments, passwordHasher: noPasswords });
    // A draft insert: the copies are drafts never published, one version each, which halves the seeding.
    const template = await documents.insert({ ...admin, mode: 'draft' }, options.type, { ...options.body, title: 'Template' });
    const templateId = String(template.document.cmsDocId);
    const versions = await storage.documents.find({ type: options.type, docIds: [templateId] });
    assert.ok(versions.length > 0, 'the template was stored');
    const pieceType = config.pieceTypes.get(options.type)!;
    const indexer = new DocumentIndexer(fieldTypes);
    await storage.transaction(async (tx) => {
      await tx.documents.remove(options.type, versions.map((version) => version._id));
      for (let n = 0; n < options.count; n++) {
        const { title, fields } = options.copy(n);
        const cmsDocId = newId();
        for (const version of versions) {
          const doc: StoredDocument = {
            ...version,
            ...fields,
            _id: version._id.replace(templateId, cmsDocId),
            cmsDocId,
            title,
            titleSortified: sortify(title),
            slug: slugify(title),
          };
          const { index, properties } = indexer.index(pieceType, doc);
          await tx.documents.insert({ ...doc, ...properties }, index);
        }
      }
    });
    return { seconds: (performance.now() - started) / 1000 };
  } finally {
    await storage.close();
  }
}
