/**
 * The preparation step: fills a fresh store through the project's own DocumentService, in the
 * bench's process, without HTTP. Each insert is the service's own transaction (the service has
 * no batch insert): the draft and the published version of one article.
 */
import { loadAppConfig } from '../src/load-app-config.js';
import { createStorage } from '../src/storage/create-storage.js';
import { createFieldTypeRegistry } from '../src/content/fields/registry.js';
import { DocumentService } from '../src/content/documents/document-service.js';
import type { RequestScope } from '../src/content/documents/scope.js';
import { articleBody } from './corpus.js';

const admin: RequestScope = { principal: { kind: 'apiKey', role: 'admin', userId: null, title: null, username: null } };
// The seed holds no attachments and no passwords.
const noAttachments = { present: () => ({}) };
const noPasswords = { hash: async () => Promise.reject(new Error('the bench seeds no passwords')) };

export interface Seeded {
  /** cmsDocIds of the articles, in insert order. */
  readonly articleIds: string[];
  readonly seconds: number;
}

/** Inserts 50 authors and `count` articles into the store that `env` names. */
export async function seed(env: Record<string, string>, count: number, progress: (done: number) => void): Promise<Seeded> {
  const started = performance.now();
  const config = await loadAppConfig({ env, cwd: env.CMS_DATA_DIR });
  const storage = createStorage(config.databaseUrl, { poolSize: config.databasePoolSize });
  await storage.migrate();
  try {
    const service = new DocumentService({ config, storage, fieldTypes: createFieldTypeRegistry(), attachments: noAttachments, passwordHasher: noPasswords });
    const insert = async (type: string, body: Record<string, unknown>) => String((await service.insert(admin, type, body))._id).split(':')[0];
    const authorIds: string[] = [];
    for (let n = 0; n < 50; n++) authorIds.push(await insert('author', { title: `Author ${n}`, bio: `Writes about ${n}` }));
    const articleIds: string[] = [];
    for (let n = 0; n < count; n++) {
      articleIds.push(await insert('article', articleBody(n, authorIds)));
      if ((n + 1) % 5000 === 0) progress(n + 1);
    }
    return { articleIds, seconds: (performance.now() - started) / 1000 };
  } finally {
    await storage.close();
  }
}
