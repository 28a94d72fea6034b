import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { rawExchange } from '../helpers/raw-http.js';

const secret = 'THE-SECRET-NEXT-TO-THE-ADMIN';
const shellHtml = `<!doctype html><html lang="en"><head><title>Admin</title>
<script type="module" crossorigin src="/admin/assets/index-abc123.js"></script>
<link rel="stylesheet" crossorigin href="/admin/assets/index-def456.css"></head>
<body><div id="app"></div>${'<!-- padding -->'.repeat(100)}</body></html>`;
const script = `console.log(${JSON.stringify('x'.repeat(3000))});`;
const styles = 'body { margin: 0 }';

/**
 * A fake build, as `vite build` and scripts/compress-admin.mjs would leave it: the shell, one
 * hashed script and the shell with compressed copies, one stylesheet without (too small), and a folder.
 * A secret file sits beside the build, for the path tricks to reach for.
 */
async function fakeBuild(): Promise<{ root: string; dir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'cms-admin-'));
  const dir = join(root, 'admin');
  await mkdir(join(dir, 'assets', 'fonts'), { recursive: true });
  await writeFile(join(root, 'secret.txt'), secret);
  await writeFile(join(dir, 'secret.txt'), secret);
  await writeFile(join(dir, 'index.html'), shellHtml);
  await writeFile(join(dir, 'index.html.br'), brotliCompressSync(shellHtml));
  await writeFile(join(dir, 'assets', 'index-abc123.js'), script);
  await writeFile(join(dir, 'assets', 'index-abc123.js.br'), brotliCompressSync(script));
  await writeFile(join(dir, 'assets', 'index-abc123.js.gz'), gzipSync(script));
  await writeFile(join(dir, 'assets', 'index-def456.css'), styles);
  await writeFile(join(dir, 'assets', 'fonts', 'inter-789.woff2'), 'font bytes');
  return { root, dir };
}

const strictPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

function assertJsonError(res: { status: number; headers: Record<string, unknown>; body: any; text: string }, status: number, name: string) {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.body.name, name);
  assert.doesNotMatch(res.text, /<html|THE-SECRET/);
}

describe('the admin build at /admin', () => {
  let t: TestApp;
  let build: { root: string; dir: string };
  before(async () => {
    build = await fakeBuild();
    t = await startTestApp(testConfig(), {}, { adminDir: build.dir });
  });
  after(async () => {
    await t.close();
    await rm(build.root, { recursive: true, force: true });
  });

  it('answers the shell with no-cache, an ETag and the security headers', async () => {
    const res = await t.request('GET', '/admin', { key: null, headers: { host: 'cms.test' } });
    assert.equal(res.status, 200);
    assert.equal(res.text, shellHtml);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers.etag), /^(W\/)?"[^"]+"$/);
    assert.equal(res.headers['content-security-policy'], strictPolicy);
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('keeps no-cache for signed-in callers too', async () => {
    const res = await t.request('GET', '/admin/');
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'no-cache');
  });

  it('lets images come from the uploads origin when baseUrl names another one', async () => {
    const elsewhere = await t.request('GET', '/admin', { key: null, headers: { host: 'admin.example' } });
    assert.match(String(elsewhere.headers['content-security-policy']), /img-src 'self' data: blob: http:\/\/cms\.test;/);
    const relative = await startTestApp({ ...testConfig(), baseUrl: '' }, {}, { adminDir: build.dir });
    try {
      const res = await relative.request('GET', '/admin', { key: null, headers: { host: 'admin.example' } });
      assert.equal(res.headers['content-security-policy'], strictPolicy);
    } finally {
      await relative.close();
    }
  });

  it('answers 304 to a request that names the current ETag', async () => {
    const first = await t.request('GET', '/admin', { key: null });
    const again = await t.request('GET', '/admin/types/article', { key: null, headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
  });

  it('answers the shell for every route of the app under /admin', async () => {
    for (const url of ['/admin/', '/admin/types/article/123', '/admin/login?next=%2Fadmin%2Fusers', '/admin/assets', '/admin/secret.txt', '/admin/index.html']) {
      const res = await t.request('GET', url, { key: null });
      assert.equal(res.status, 200, url);
      assert.equal(res.text, shellHtml, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
    }
  });

  it('serves assets as immutable for a year', async () => {
    const res = await t.request('GET', '/admin/assets/index-abc123.js', { key: null });
    assert.equal(res.status, 200);
    assert.equal(res.text, script);
    assert.match(String(res.headers['content-type']), /^(text|application)\/javascript/);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(res.headers.etag);
    const css = await t.request('GET', '/admin/assets/index-def456.css', { key: null });
    assert.equal(css.text, styles);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    const font = await t.request('GET', '/admin/assets/fonts/inter-789.woff2', { key: null });
    assert.equal(font.status, 200);
  });

  it('sends the compressed copy the client accepts, and says the answer varies with Accept-Encoding', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['br, gzip', 'br'],
      ['gzip, deflate', 'gzip'],
      ['gzip, br;q=0', 'gzip'],
      ['identity', undefined],
      [undefined, undefined],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
      const res = await t.app.inject({ method: 'GET', url: '/admin/assets/index-abc123.js', headers });
      assert.equal(res.statusCode, 200, String(acceptEncoding));
      assert.equal(res.headers['content-encoding'], expected, String(acceptEncoding));
      assert.match(String(res.headers.vary), /accept-encoding/i);
      assert.match(String(res.headers['content-type']), /javascript/);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      const expectedBytes = expected === 'br' ? brotliCompressSync(script) : expected === 'gzip' ? gzipSync(script) : Buffer.from(script);
      assert.deepEqual(res.rawPayload, expectedBytes, String(acceptEncoding));
    }
    const shell = await t.app.inject({ method: 'GET', url: '/admin/types/article', headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(shell.headers['content-encoding'], 'br');
    assert.match(String(shell.headers.vary), /accept-encoding/i);
    assert.equal(shell.headers['cache-control'], 'no-cache');
    assert.equal(shell.headers['content-type'], 'text/html; charset=utf-8');
    assert.deepEqual(shell.rawPayload, brotliCompressSync(shellHtml));
    const css = await t.app.inject({ method: 'GET', url: '/admin/assets/index-def456.css', headers: { 'accept-encoding': 'br' } });
    assert.equal(css.headers['content-encoding'], undefined, 'no compressed copy: the file as it is');
    assert.equal(css.body, styles);
  });

  it('answers a missing asset, a folder or the bare prefix with a 404 in the error shape, never the shell', async () => {
    for (const url of ['/admin/assets/index-000000.js', '/admin/assets/', '/admin/assets/fonts', '/admin/assets/fonts/', '/admin/assets/.hidden']) {
      assertJsonError(await t.request('GET', url, { key: null }), 404, 'notfound');
    }
  });

  it('refuses path tricks with a 400 or 404 in the error shape and never leaves the folder', async () => {
    const port = await t.listen();
    const tricks = [
      '/admin/assets/../secret.txt',
      '/admin/assets/../../secret.txt',
      '/admin/assets/fonts/../../secret.txt',
      '/admin/assets/%2e%2e/secret.txt',
      '/admin/assets/%2e%2e/%2e%2e/secret.txt',
      '/admin/assets/..%2fsecret.txt',
      '/admin/assets/..%2F..%2Fsecret.txt',
      '/admin/assets/..%5csecret.txt',
      '/admin/assets/..\\secret.txt',
      '/admin/assets/%252e%252e/secret.txt',
      '/admin/assets/index-abc123.js%00.png',
      '/admin/assets/%00',
      '/admin/assets/./index-abc123.js',
      '/admin/assets//index-abc123.js',
      '/admin/assets/fonts//inter-789.woff2',
      '/admin/assets/%zz',
    ];
    for (const path of tricks) {
      const answer = await rawExchange(port, Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      assert.ok([400, 404].includes(answer.status), `${path}: ${answer.status}`);
      assert.match(String(answer.headers['content-type']), /^application\/json/, path);
      assert.ok(['invalid', 'notfound'].includes(JSON.parse(answer.text).name), path);
      assert.doesNotMatch(answer.text, /THE-SECRET|<html/, path);
    }
  });

  it('answers HEAD like GET, without the body', async () => {
    const shell = await t.app.inject({ method: 'HEAD', url: '/admin/types' });
    assert.equal(shell.statusCode, 200);
    assert.equal(shell.body, '');
    assert.equal(shell.headers['cache-control'], 'no-cache');
    assert.ok(shell.headers.etag);
    assert.equal(shell.headers['content-security-policy'], strictPolicy.replace("blob:;", 'blob: http://cms.test;'));
    const asset = await t.app.inject({ method: 'HEAD', url: '/admin/assets/index-abc123.js' });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.body, '');
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(Number(asset.headers['content-length']), Buffer.byteLength(script));
    const missing = await t.app.inject({ method: 'HEAD', url: '/admin/assets/missing.js' });
    assert.equal(missing.statusCode, 404);
  });
});

describe('the admin before it is built', () => {
  let t: TestApp;
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'cms-admin-'));
    t = await startTestApp(testConfig(), {}, { adminDir: join(root, 'not-built') });
  });
  after(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers 503 in the error shape, saying to run npm run build', async () => {
    for (const url of ['/admin', '/admin/', '/admin/types/article']) {
      const res = await t.request('GET', url, { key: null });
      assertJsonError(res, 503, 'unavailable');
      assert.match(res.body.message, /npm run build/);
    }
    const head = await t.app.inject({ method: 'HEAD', url: '/admin' });
    assert.equal(head.statusCode, 503);
    assertJsonError(await t.request('GET', '/admin/assets/index-abc123.js', { key: null }), 404, 'notfound');
  });

  it('still serves the API', async () => {
    const res = await t.request('GET', '/api/v1/article', { key: null });
    assert.equal(res.status, 200);
  });
});
