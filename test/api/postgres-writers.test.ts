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

type Method = 'GET' | 'POST' | 'PATCH';

/** The fixture types, with a counter that has no maximum, for hundreds of `$inc`. */
function countingConfig(): Record<string, unknown> {
  const config = testConfig();
  (config.modules as Record<string, any>).article.fields.add.counter = { type: 'integer' };
  return config;
}

/** Two servers on one PostgreSQL schema, as two processes an operator started. */
describeOnPostgres('writers side by side: two servers on one PostgreSQL schema', () => {
  const apps: FastifyInstance[] = [];
  const dataDirs: string[] = [];
  let database: SchemaDatabase;

  before(async () => {
    database = await newSchemaDatabase();
    for (let n = 0; n < 2; n++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'cms-pg-writers-'));
      dataDirs.push(dataDir);
      const config = await loadAppConfig({
        config: countingConfig(),
        env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent', CMS_DATABASE_URL: database.url, CMS_DATABASE_POOL_SIZE: '6' },
        cwd: dataDir,
      });
      apps.push(await buildApp(config));
    }
  });

  after(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database.drop();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const request = async (app: FastifyInstance, method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `ApiKey ${keys.admin}`, ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined, text: response.body };
  };

  it('counts every PATCH $inc that both servers apply at once to one document, in the published version and the draft', async () => {
    const created = await request(apps[0]!, 'POST', '/api/v1/article', { title: 'Counted', counter: 0 });
    assert.equal(created.status, 200, created.text);
    const id = created.body._id as string;
    const perServer = 100;
    const answers = await Promise.all(
      apps.flatMap((app) => Array.from({ length: perServer }, () => request(app, 'PATCH', `/api/v1/article/${id}`, { $inc: { counter: 1 } }))),
    );
    assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200], answers.find((answer) => answer.status !== 200)?.text);
    const counters = answers.map((answer) => answer.body.counter as number).sort((a, b) => a - b);
    assert.deepEqual(counters, Array.from({ length: 2 * perServer }, (_, n) => n + 1), 'each answer saw one more');
    const published = await request(apps[1]!, 'GET', `/api/v1/article/${id}`);
    assert.equal(published.body.counter, 2 * perServer);
    const draft = await request(apps[0]!, 'GET', `/api/v1/article/${id.replace(':published', ':draft')}?aposMode=draft`);
    assert.equal(draft.status, 200, draft.text);
    assert.equal(draft.body.counter, 2 * perServer);
    assert.equal(draft.body.modified, false, 'the draft is as published');
  });

  it('gives concurrent inserts of one title on both servers distinct slugs, none refused', async () => {
    const perServer = 25;
    const answers = await Promise.all(
      apps.flatMap((app) => Array.from({ length: perServer }, () => request(app, 'POST', '/api/v1/article', { title: 'Same Title' }))),
    );
    assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200], answers.find((answer) => answer.status !== 200)?.text);
    const slugs = answers.map((answer) => answer.body.slug as string);
    assert.equal(new Set(slugs).size, 2 * perServer, slugs.join(' '));
    assert.ok(slugs.includes('same-title') && slugs.includes(`same-title-${2 * perServer}`), slugs.join(' '));
  });

  it('publishes, patches the draft and patches the published version of one document at once from both servers, consistently', async () => {
    const created = await request(apps[0]!, 'POST', '/api/v1/article', { title: 'Raced', counter: 0 });
    const publishedId = created.body._id as string;
    const draftId = publishedId.replace(':published', ':draft');
    const rounds = 10;
    const answers = await Promise.all(
      Array.from({ length: rounds }, (_, n) => [
        request(apps[n % 2]!, 'PATCH', `/api/v1/article/${draftId}?aposMode=draft`, { $inc: { counter: 1 } }),
        request(apps[(n + 1) % 2]!, 'POST', `/api/v1/article/${draftId}/publish?aposMode=draft`, {}),
        request(apps[n % 2]!, 'PATCH', `/api/v1/article/${publishedId}`, { $inc: { counter: 10 } }),
      ]).flat(),
    );
    assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200], answers.find((answer) => answer.status !== 200)?.text);
    // Every increment reached the draft: the draft ones directly, the published ones through it.
    const draft = await request(apps[1]!, 'GET', `/api/v1/article/${draftId}?aposMode=draft`);
    assert.equal(draft.body.counter, rounds * 11);
    const published = await request(apps[0]!, 'GET', `/api/v1/article/${publishedId}`);
    assert.equal(draft.body.modified, published.body.counter !== draft.body.counter, 'modified says whether the draft differs');
  });

  it('answers a cached GET anew on one server right after the other server wrote', async () => {
    const created = await request(apps[0]!, 'POST', '/api/v1/article', { title: 'Before' });
    const url = `/api/v1/article/${created.body._id}`;
    const first = await request(apps[0]!, 'GET', url);
    const etag = first.headers.etag as string;
    assert.ok(etag, 'a cacheable answer');
    assert.equal((await request(apps[0]!, 'GET', url, undefined, { 'if-none-match': etag })).status, 304);
    assert.equal((await request(apps[1]!, 'PATCH', url, { title: 'After' })).status, 200);
    const again = await request(apps[0]!, 'GET', url, undefined, { 'if-none-match': etag });
    assert.equal(again.status, 200);
    assert.equal(again.body.title, 'After');
  });
});
