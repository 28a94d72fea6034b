import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { describeOnPostgres, newSchemaDatabase, type SchemaDatabase } from '../helpers/postgres.js';
import { keys, testConfig } from '../helpers/test-app.js';

/**
 * The whole service on PostgreSQL, configured as an operator would: CMS_DATABASE_URL names the
 * database (its search_path set to a schema of this run's own through the URL's `options`).
 */
describeOnPostgres('the service on PostgreSQL', () => {
  let app: FastifyInstance;
  let dataDir: string;
  let database: SchemaDatabase;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cms-pg-test-'));
    database = await newSchemaDatabase();
    const config = await loadAppConfig({
      config: testConfig(),
      env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent', CMS_DATABASE_URL: database.url, CMS_DATABASE_POOL_SIZE: '4' },
      cwd: dataDir,
    });
    app = await buildApp(config);
  });

  after(async () => {
    await app?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const request = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, key: string | null = keys.admin) => {
    const headers: Record<string, string> = key ? { authorization: `ApiKey ${key}` } : {};
    const response = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined, text: response.body };
  };
  const titles = (body: { results: { title: string }[] }) => body.results.map((doc) => doc.title).sort();

  it('stores in the schema the URL names, and reports itself ready', async () => {
    const health = await request('GET', '/health', undefined, null);
    assert.equal(health.status, 200);
    const tables = await database.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [database.schema],
    );
    assert.ok(tables.some((table) => table.table_name === 'documents'), JSON.stringify(tables));
  });

  it('inserts, lists with a filter and a search, gets one, patches, publishes and deletes', async () => {
    const seeds = [
      { title: 'Running Shoes', category: 'news', priority: 3 },
      { title: 'Mountain Guide', category: 'travel', priority: 8 },
      { title: 'Cooking Pasta', category: 'news', priority: 5 },
    ];
    const ids: string[] = [];
    for (const seed of seeds) {
      const res = await request('POST', '/api/v1/article', seed);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.title, seed.title);
      ids.push(res.body._id);
    }

    assert.deepEqual(titles((await request('GET', '/api/v1/article?category=news')).body), ['Cooking Pasta', 'Running Shoes']);
    assert.deepEqual(titles((await request('GET', '/api/v1/article?priority[min]=5')).body), ['Cooking Pasta', 'Mountain Guide']);
    assert.deepEqual(titles((await request('GET', '/api/v1/article?search=running')).body), ['Running Shoes']);
    assert.deepEqual(titles((await request('GET', '/api/v1/article?autocomplete=moun')).body), ['Mountain Guide']);
    const page = await request('GET', '/api/v1/article?sort[title]=1&perPage=2&page=2');
    assert.equal(page.body.pages, 2);
    assert.deepEqual(page.body.results.map((doc: { title: string }) => doc.title), ['Running Shoes']);

    const one = await request('GET', `/api/v1/article/${ids[1]}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.title, 'Mountain Guide');
    assert.equal(one.body.category, 'travel');

    const patched = await request('PATCH', `/api/v1/article/${ids[1]}`, { category: 'news' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await request('GET', '/api/v1/article?category=news')).body.results.length, 3);

    const draft = await request('POST', '/api/v1/article?cmsMode=draft', { title: 'Draft Only' });
    assert.equal(draft.status, 200, draft.text);
    const anonymousTitles = async () => titles((await request('GET', '/api/v1/article', undefined, null)).body);
    assert.deepEqual(await anonymousTitles(), ['Cooking Pasta', 'Mountain Guide', 'Running Shoes']);
    const published = await request('POST', `/api/v1/article/${draft.body._id}/publish`, {});
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body._id, `${draft.body.cmsDocId}:en:published`);
    assert.deepEqual(await anonymousTitles(), ['Cooking Pasta', 'Draft Only', 'Mountain Guide', 'Running Shoes']);

    const slugTwin = await request('POST', '/api/v1/article', { title: 'Running Shoes' });
    assert.equal(slugTwin.status, 200, slugTwin.text);
    assert.equal(slugTwin.body.slug, 'running-shoes-2');

    const removed = await request('DELETE', `/api/v1/article/${ids[0]}`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await request('GET', `/api/v1/article/${ids[0]}`)).status, 404);
  });

  it('logs a user in with a bearer token and out again', async () => {
    const user = await request('POST', '/api/v1/@cms/user', {
      title: 'Ada', username: 'ada', password: 'ada-password-123', role: 'editor', email: 'ada@example.com',
    });
    assert.equal(user.status, 200, user.text);
    const twin = await request('POST', '/api/v1/@cms/user', { title: 'Ada 2', username: 'ada', password: 'another-password-1' });
    assert.equal(twin.status, 409, twin.text);
    const login = await request('POST', '/api/v1/@cms/login/login', { username: 'ada@example.com', password: 'ada-password-123' }, null);
    assert.equal(login.status, 200, login.text);
    const bearer = { authorization: `Bearer ${login.body.token}` };
    const whoami = await app.inject({ method: 'GET', url: '/api/v1/@cms/login/whoami', headers: bearer });
    assert.equal(JSON.parse(whoami.body).username, 'ada');
    const logout = await app.inject({ method: 'POST', url: '/api/v1/@cms/login/logout', headers: bearer });
    assert.equal(logout.statusCode, 200, logout.body);
    assert.equal((await app.inject({ method: 'GET', url: '/api/v1/@cms/login/whoami', headers: bearer })).statusCode, 401);
  });
});
