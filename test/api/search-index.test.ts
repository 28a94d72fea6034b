import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Database from '../../src/storage/sqlite/driver.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { buildApp } from '../../src/app.js';
import { apiTestsOnPostgres, cheapPasswordHasher, keys } from '../helpers/test-app.js';
import { newSchemaDatabase } from '../helpers/postgres.js';

/** `story`: `summary` shown to the public or not, `secret` never; `page`: a projection that shows every text. */
function config(summaryShown: boolean): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    apiKeys: { [keys.admin]: { role: 'admin' } },
    modules: {
      story: {
        extend: '@cms/piece-type',
        options: { label: 'Story', publicApiProjection: summaryShown ? { title: 1, summary: 1 } : { title: 1 } },
        fields: { add: { summary: { type: 'string' }, secret: { type: 'string' } } },
      },
      page: {
        extend: '@cms/piece-type',
        options: { label: 'Page', publicApiProjection: { title: 1, slug: 1, intro: 1, body: 1 } },
        fields: { add: { intro: { type: 'string' }, body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } } } },
      },
    },
  };
}

/** One store (a SQLite file, or a PostgreSQL schema) that apps are started on one after another. */
async function reopenableStore(): Promise<{ start(config: Record<string, unknown>): Promise<Started>; dispose(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-reindex-'));
  const env: Record<string, string> = { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'info' };
  const database = apiTestsOnPostgres ? await newSchemaDatabase() : undefined;
  if (database) env.CMS_DATABASE_URL = database.url;
  return {
    async start(appConfig) {
      const messages: string[] = [];
      const loaded = await loadAppConfig({ config: appConfig, env, cwd: dataDir });
      const logStream = { write: (line: string) => void messages.push(String(JSON.parse(line).msg)) };
      const app = await buildApp(loaded, { passwordHasher: cheapPasswordHasher(), logStream });
      return { app, messages, databaseUrl: loaded.databaseUrl };
    },
    async dispose() {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

interface Started {
  readonly app: FastifyInstance;
  /** What the app logged. */
  readonly messages: string[];
  readonly databaseUrl: string;
}

async function request(app: FastifyInstance, method: 'GET' | 'POST', url: string, body?: unknown, key: string | null = keys.admin) {
  const response = await app.inject({
    method,
    url,
    headers: { ...(key ? { authorization: `ApiKey ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    payload: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

const titles = (body: { results: { title: string }[] }) => body.results.map((doc) => doc.title);
const reindexed = (messages: string[], type: string) => messages.filter((message) => message.startsWith(`indexing the ${type} documents again`)).length;

describe('the search index follows the configuration', () => {
  it('indexes a type again at the start after its public projection changed, once, and leaves its documents as they were', async () => {
    const store = await reopenableStore();
    try {
      const first = await store.start(config(false));
      // A new store's types hold nothing to index: their plans are only recorded.
      assert.equal(reindexed(first.messages, 'story'), 0);
      const created = await request(first.app, 'POST', '/api/v1/story', { title: 'Harbour news', summary: 'zanzibar spices' });
      assert.equal(created.status, 200);
      const id = String(created.body._id).replace(':draft', ':published');
      assert.equal((await request(first.app, 'POST', `/api/v1/story/${created.body._id}/publish`)).status, 200);
      const published = (await request(first.app, 'GET', `/api/v1/story/${id}`)).body;
      assert.deepEqual(titles((await request(first.app, 'GET', '/api/v1/story?search=zanzibar', undefined, null)).body), []);
      await first.app.close();

      const second = await store.start(config(true));
      assert.equal(reindexed(second.messages, 'story'), 1);
      assert.equal(reindexed(second.messages, 'page'), 0, 'a type whose plan did not change is left alone');
      assert.ok(second.messages.some((message) => /^indexed 3 versions of story in \d+\.\d s$/.test(message)), 'the draft, the published and the previous version');
      assert.deepEqual(titles((await request(second.app, 'GET', '/api/v1/story?search=zanzibar', undefined, null)).body), ['Harbour news']);
      assert.deepEqual(titles((await request(second.app, 'GET', '/api/v1/story?search=zanzibar')).body), ['Harbour news']);
      const doc = (await request(second.app, 'GET', `/api/v1/story/${id}`)).body;
      assert.deepEqual(doc, published, 'indexing again changes no document');
      await second.app.close();

      const third = await store.start(config(true));
      assert.equal(reindexed(third.messages, 'story'), 0);
      assert.deepEqual(titles((await request(third.app, 'GET', '/api/v1/story?search=zanzibar', undefined, null)).body), ['Harbour news']);
      await third.app.close();
    } finally {
      await store.dispose();
    }
  });

  it('searches all texts of a type for the public when its projection shows them all, and only the shown ones otherwise', async () => {
    const store = await reopenableStore();
    try {
      const { app, databaseUrl } = await store.start(config(true));
      const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>lighthouse keepers</p>' }] };
      for (const [type, doc] of [
        ['page', { title: 'Coast guide', intro: 'tides', body }],
        ['story', { title: 'Coast story', summary: 'tides', secret: 'lighthouse' }],
      ] as const) {
        const created = await request(app, 'POST', `/api/v1/${type}`, doc);
        assert.equal(created.status, 200);
        assert.equal((await request(app, 'POST', `/api/v1/${type}/${created.body._id}/publish`)).status, 200);
      }
      const anonymous = (url: string) => request(app, 'GET', url, undefined, null);
      assert.deepEqual(titles((await anonymous('/api/v1/page?search=lighthouse')).body), ['Coast guide']);
      assert.deepEqual(titles((await anonymous('/api/v1/page?search=tides')).body), ['Coast guide']);
      assert.deepEqual(titles((await anonymous('/api/v1/story?search=tides')).body), ['Coast story']);
      assert.deepEqual(titles((await anonymous('/api/v1/story?search=lighthouse')).body), [], 'a hidden field stays unsearchable');
      assert.deepEqual(titles((await request(app, 'GET', '/api/v1/story?search=lighthouse')).body), ['Coast story']);
      if (!apiTestsOnPostgres) {
        const inspector = new Database(databaseUrl.replace(/^sqlite:/, ''), { readonly: true });
        try {
          const publicTexts = (type: string) => inspector.prepare(`SELECT public_title || public_high || public_low FROM document_texts
            JOIN documents USING (seq) WHERE documents.type = ?`).pluck().all(type);
          assert.deepEqual(publicTexts('page'), ['', ''], 'no copy of texts the public sees anyway');
          assert.ok(publicTexts('story').every((texts) => /Coast story/.test(String(texts))));
        } finally {
          inspector.close();
        }
      }
      await app.close();
    } finally {
      await store.dispose();
    }
  });
});
