import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../helpers/server-process.js';
import { makeImage, multipartBody } from '../helpers/media.js';
import { adminQuery, dropSchema, requirePostgresUrl, skipWithoutPostgres, uniqueSchemaName } from '../helpers/postgres.js';

const main = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/**
 * Starts the real process in an empty directory, returns its log once it listens and has said
 * all it says at start, then stops it. The start lines and warnings are written right after
 * listening, in one go: the log line of a request sent after that comes after them.
 */
async function startLog(env: Record<string, string>): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'cms-start-'));
  const child = spawn(process.execPath, [main], { cwd, env: { PATH: process.env.PATH ?? '', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 20 s: ${output}`)), 20_000);
      let probed = false;
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const listening = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
        if (listening && !probed) {
          probed = true;
          fetch(`${listening[1]}/health?probe=start`).then((response) => response.body?.cancel(), reject);
        }
        if (!output.includes('/health?probe=start')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    await rm(cwd, { recursive: true, force: true });
  }
  return output;
}

test('the bundled demo listens on 127.0.0.1 and warns that its API keys are public', async () => {
  const log = await startLog({});
  assert.match(log, /Server listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(log, /0\.0\.0\.0/);
  const warning = log.split('\n').find((line) => line.includes('PUBLIC API keys'));
  assert.ok(warning, log);
  assert.equal(JSON.parse(warning).level, 40);
});

test('a first start on an empty store logs the one-time setup code at warn', async () => {
  const log = await startLog({ CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1' });
  const line = log.split('\n').find((entry) => entry.includes('setup code'));
  assert.ok(line, log);
  assert.equal(JSON.parse(line).level, 40);
  assert.match(JSON.parse(line).msg, /setup code [A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
});

test('with its own keys (CMS_API_KEYS) the demo does not warn', async () => {
  // HOST keeps the test on loopback; that the default is then 0.0.0.0 is in test/unit/config.test.ts.
  const log = await startLog({ CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1' });
  assert.match(log, /Server listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(log, /PUBLIC API keys/);
});

test('a per-address connection cap not below the total is warned of at start', async () => {
  const env = { CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1', CMS_LIMIT_CONNECTIONS: '50' };
  const warning = (await startLog({ ...env, CMS_LIMIT_CONNECTIONS_PER_ADDRESS: '50' })).split('\n').find((line) => line.includes('connectionsPerAddress'));
  assert.ok(warning);
  assert.equal(JSON.parse(warning).level, 40);
  assert.match(JSON.parse(warning).msg, /limits\.connectionsPerAddress \(50\) is not below limits\.connections \(50\)/);
  assert.doesNotMatch(await startLog({ ...env, CMS_LIMIT_CONNECTIONS_PER_ADDRESS: '49' }), /connectionsPerAddress/);
});

/** The JSON log lines of a start, parsed. */
function linesOf(log: string): { level: number; msg: string; [key: string]: unknown }[] {
  return log.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

test('a start says, one info line each, the configuration, piece types, store, files, links and the URL to open', async () => {
  const log = await startLog({});
  const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(log)![1];
  assert.notEqual(port, '0');
  const info = linesOf(log).filter((line) => line.level === 30).map((line) => line.msg);
  const expected = [
    'Configuration: the bundled demo (no CMS_CONFIG, no ./cms.config.mjs)',
    'Piece types (8): @cms/user, @cms/image, @cms/file, @cms/image-tag, @cms/file-tag, article, event, note',
    /^Store: SQLite file \/.*\/data\/cms\.sqlite$/,
    /^Files: local directory \/.*\/data\/uploads$/,
    // PORT=0: the port the server actually bound, not the one asked for.
    `Links (_url, attachment _urls, redirects) start at http://localhost:${port}: set baseUrl (or CMS_BASE_URL) when clients reach this server at another address, such as behind a proxy`,
    `Open http://localhost:${port}/admin (the API is at http://localhost:${port}/api/v1)`,
  ];
  for (const want of expected) {
    assert.ok(info.some((msg) => (typeof want === 'string' ? msg === want : want.test(msg))), `${want} in\n${info.join('\n')}`);
  }
  const piece = linesOf(log).find((line) => line.msg.startsWith('Piece types'))!;
  assert.deepEqual(piece.pieceTypes, ['@cms/user', '@cms/image', '@cms/file', '@cms/image-tag', '@cms/file-tag', 'article', 'event', 'note']);
});

test('the start lines name a configured file, baseUrl and S3 bucket without any secret', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'cms-start-config-'));
  const config = join(cwd, 'site.json');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(config, JSON.stringify({ baseUrl: 'https://cms.example.com' }));
  try {
    const log = await startLog({
      CMS_CONFIG: config,
      CMS_API_KEYS: 'my-own-secret-key-0123:admin',
      HOST: '127.0.0.1',
      CMS_S3_BUCKET: 'my-bucket',
      CMS_S3_ENDPOINT: 'http://127.0.0.1:9/',
      CMS_S3_ACCESS_KEY_ID: 'AKIAEXAMPLEACCESSKEY',
      CMS_S3_SECRET_ACCESS_KEY: 'my-s3-secret-key-value',
    });
    const info = linesOf(log).map((line) => line.msg);
    assert.ok(info.includes(`Configuration: the CMS_CONFIG file ${config}`), log);
    assert.ok(info.includes('Links (_url, attachment _urls, redirects) start at https://cms.example.com, the configured baseUrl'), log);
    assert.ok(info.includes('Files: S3 bucket my-bucket at http://127.0.0.1:9, served by this server'), log);
    for (const secret of ['my-own-secret-key-0123', 'AKIAEXAMPLEACCESSKEY', 'my-s3-secret-key-value']) assert.ok(!log.includes(secret), secret);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});

test('the store line names the PostgreSQL host and database, never the password', { skip: skipWithoutPostgres }, async () => {
  const schema = uniqueSchemaName();
  await adminQuery(`CREATE SCHEMA "${schema}"`);
  try {
    const url = new URL(requirePostgresUrl());
    url.password = 'pg-secret-password';
    url.searchParams.set('options', `-c search_path=${schema}`);
    const log = await startLog({ CMS_DATABASE_URL: url.toString(), CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1' });
    const store = linesOf(log).find((line) => line.msg.startsWith('Store:'));
    assert.equal(store?.msg, `Store: PostgreSQL database ${url.pathname.slice(1)} on ${url.host} as ${url.username}`, log);
    assert.ok(!log.includes('pg-secret-password'));
  } finally {
    await dropSchema(schema);
  }
});

test('without baseUrl, links and the image src redirect point at the port the server listens on', async () => {
  // The bundled demo used to pin http://localhost:3000, whatever PORT said.
  const server = await startServerProcess({ env: {} });
  try {
    assert.notEqual(server.port, 3000);
    const origin = `http://127.0.0.1:${server.port}`;
    const auth = { authorization: 'ApiKey dev-admin-key-change-me' };
    const form = multipartBody([{ name: 'file', filename: 'red.png', content: await makeImage('png', 40, 30) }]);
    const upload = await fetch(`${origin}/api/v1/@cms/attachment/upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': form.contentType },
      body: new Uint8Array(form.payload),
    });
    assert.equal(upload.status, 200, await upload.clone().text());
    const attachment = (await upload.json()) as { _id: string; _url: string };
    const ownLinks = new RegExp(`^http://localhost:${server.port}/uploads/attachments/`);
    assert.match(attachment._url, ownLinks);
    const image = await fetch(`${origin}/api/v1/@cms/image`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Red', attachment: { _id: attachment._id } }),
    });
    assert.equal(image.status, 200);
    const { _id } = (await image.json()) as { _id: string };
    const src = await fetch(`${origin}/api/v1/@cms/image/${_id}/src?size=one-half`, { redirect: 'manual' });
    assert.equal(src.status, 302);
    const location = src.headers.get('location')!;
    assert.match(location, ownLinks);
    // The file is there, on this port (fetched by address: localhost may resolve to ::1 first).
    const file = await fetch(`${origin}${new URL(location).pathname}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    const article = await fetch(`${origin}/api/v1/article`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello' }),
    });
    const body = (await article.json()) as { _url: string; _parentUrl: string };
    assert.equal(body._url, `http://localhost:${server.port}/articles/hello`);
    assert.equal(body._parentUrl, `http://localhost:${server.port}/articles`);
  } finally {
    await server.stop();
  }
});
