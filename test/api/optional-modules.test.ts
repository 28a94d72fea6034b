import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServerProcess } from '../helpers/server-process.js';
import { makeImage, multipartBody } from '../helpers/media.js';
import { adminQuery, dropSchema, requirePostgresUrl, skipWithoutPostgres, uniqueSchemaName } from '../helpers/postgres.js';

const recorder = pathToFileURL(new URL('../helpers/module-recorder.js', import.meta.url).pathname).href;

/**
 * Parts a server started on the embedded store with the bundled demo configuration must not
 * load until something uses them (docs/reference/stores-and-processes.md, "Memory"): each holds
 * megabytes of code, native libraries or threads for as long as the process runs.
 */
const optional: ReadonlyArray<{ readonly name: string; readonly url: RegExp }> = [
  { name: 'sharp (images)', url: /\/node_modules\/sharp\// },
  { name: 'the AWS SDK (S3 file storage)', url: /\/node_modules\/@aws-sdk\// },
  { name: 'pg (the PostgreSQL driver)', url: /\/node_modules\/pg\// },
  { name: 'the PostgreSQL adapter', url: /\/dist\/src\/storage\/postgres\// },
];

async function loadedModules(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
}

function loadedOf(modules: readonly string[], url: RegExp): string[] {
  return modules.filter((loaded) => url.test(loaded));
}

test('a server on the embedded store loads sharp, the AWS SDK and pg only when something uses them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cms-modules-'));
  const modulesFile = join(dir, 'modules.txt');
  const server = await startServerProcess({ env: { CMS_TEST_MODULES_FILE: modulesFile }, nodeArgs: ['--import', recorder] });
  try {
    const auth = { authorization: 'ApiKey dev-admin-key-change-me' };
    assert.equal((await server.request('GET', '/health')).status, 200);
    const created = await server.request('POST', '/api/v1/article', { headers: auth, body: { title: 'Loaded lazily' } });
    assert.equal(created.status, 200, created.text);
    const list = await server.request('GET', '/api/v1/article', { headers: auth });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.results.map((article: { title: string }) => article.title),
      ['Loaded lazily'],
    );
    const one = await server.request('GET', `/api/v1/article/${created.body._id}`, { headers: auth });
    assert.equal(one.status, 200);

    const atRest = await loadedModules(modulesFile);
    // The recorder sees what the server does load: the store's adapter and the web framework.
    assert.ok(atRest.some((url) => /\/dist\/src\/storage\/sqlite\//.test(url)), 'the recorder saw no SQLite adapter');
    assert.ok(atRest.some((url) => /\/node_modules\/fastify\//.test(url)), 'the recorder saw no fastify');
    for (const { name, url } of optional) {
      assert.deepEqual(loadedOf(atRest, url), [], `${name} was loaded without being used`);
    }

    // The first image loads sharp, and it works.
    const form = multipartBody([{ name: 'file', filename: 'red.png', content: await makeImage('png', 40, 30) }]);
    const upload = await fetch(`http://127.0.0.1:${server.port}/api/v1/@cms/attachment/upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': form.contentType },
      body: new Uint8Array(form.payload),
    });
    assert.equal(upload.status, 200, await upload.clone().text());
    const attachment = (await upload.json()) as { width: number; height: number };
    assert.deepEqual([attachment.width, attachment.height], [40, 30]);
    assert.ok((await loadedModules(modulesFile)).some((url) => /\/node_modules\/sharp\//.test(url)), 'the upload did not load sharp');
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a server on PostgreSQL loads neither the SQLite adapter nor its driver', { skip: skipWithoutPostgres }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cms-modules-'));
  const modulesFile = join(dir, 'modules.txt');
  const schema = uniqueSchemaName();
  await adminQuery(`CREATE SCHEMA "${schema}"`);
  const url = new URL(requirePostgresUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  const server = await startServerProcess({
    env: { CMS_TEST_MODULES_FILE: modulesFile, CMS_DATABASE_URL: url.toString(), CMS_API_KEYS: 'modules-test-admin-key-0123:admin' },
    nodeArgs: ['--import', recorder],
  });
  try {
    const auth = { authorization: 'ApiKey modules-test-admin-key-0123' };
    const created = await server.request('POST', '/api/v1/article', { headers: auth, body: { title: 'On PostgreSQL' } });
    assert.equal(created.status, 200, created.text);
    const list = await server.request('GET', '/api/v1/article', { headers: auth });
    assert.deepEqual(
      list.body.results.map((article: { title: string }) => article.title),
      ['On PostgreSQL'],
    );
    const loaded = await loadedModules(modulesFile);
    assert.notDeepEqual(loadedOf(loaded, /\/dist\/src\/storage\/postgres\//), [], 'the recorder saw no PostgreSQL adapter');
    // The driver is required by the adapter's driver.ts: no adapter, no driver.
    assert.deepEqual(loadedOf(loaded, /\/dist\/src\/storage\/sqlite\/|\/node_modules\/better-sqlite3/), []);
    assert.deepEqual(loadedOf(loaded, /\/node_modules\/sharp\//), []);
  } finally {
    await server.stop();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  }
});
