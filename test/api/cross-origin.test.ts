import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { demoConfig } from '../../src/config/demo-config.js';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A request over a real socket, with the Host and Origin a browser (or a rebinding page) would send. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const all = { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }) };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers: all }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode!, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) });
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

describe("the demo's public API keys: refused to other origins' pages and to names a page can rebind", () => {
  const admin = { authorization: 'ApiKey dev-admin-key-change-me' };
  const editor = { authorization: 'ApiKey dev-editor-key-change-me' };
  let t: TestApp;
  let port: number;
  let own: string;
  before(async () => {
    t = await startTestApp(demoConfig, { CMS_CORS_ORIGINS: 'http://localhost:5173' });
    port = await t.listen();
    own = `localhost:${port}`;
  });
  after(() => t.close());

  const usernames = async () => {
    const list = await send(port, 'GET', '/api/v1/@cms/user?perPage=100', { host: own, ...admin });
    assert.equal(list.status, 200);
    return list.body.results.map((user: { username: string }) => user.username).sort();
  };
  const newAdmin = (username: string) => ({ title: username, username, password: 'a-long-password-123', role: 'admin' });

  it('refuses an admin key sent by a page of another origin with 403, and creates nothing', async () => {
    const before = await usernames();
    for (const origin of ['http://evil.example', 'null', `http://localhost:${port + 1}`]) {
      const res = await send(port, 'POST', '/api/v1/@cms/user', { host: own, origin, ...admin }, newAdmin('intruder'));
      assert.equal(res.status, 403, origin);
      assert.equal(res.body.name, 'forbidden');
      assert.match(res.body.message, /^public demo API key refused from another site's page \(any site knows it\): .*CMS_CORS_ORIGINS.*CMS_API_KEYS$/);
      assert.deepEqual(res.body.data, {});
    }
    const referred = await send(port, 'POST', '/api/v1/article', { host: own, referer: 'http://evil.example/page', ...editor }, { title: 'Forged' });
    assert.equal(referred.status, 403, 'a Referer names the page when Origin is missing');
    assert.deepEqual(await usernames(), before);
    const articles = await send(port, 'GET', '/api/v1/article?cmsMode=draft', { host: own, ...editor });
    assert.deepEqual(articles.body.results, []);
  });

  it('serves the same keys to a client that sends no Origin (curl, a server), to its own pages and to listed origins', async () => {
    const curl = await send(port, 'POST', '/api/v1/@cms/user', { host: own, ...admin }, newAdmin('by-curl'));
    assert.equal(curl.status, 200, JSON.stringify(curl.body));
    const ownPage = await send(port, 'POST', '/api/v1/@cms/user', { host: own, origin: `http://localhost:${port}`, ...admin }, newAdmin('by-own-page'));
    assert.equal(ownPage.status, 200, JSON.stringify(ownPage.body));
    const byAddress = await send(port, 'GET', '/api/v1/note', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, ...editor });
    assert.equal(byAddress.status, 200);
    const listed = await send(port, 'POST', '/api/v1/article', { host: own, origin: 'http://localhost:5173', ...editor }, { title: 'From the front end' });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.deepEqual(await usernames(), ['by-curl', 'by-own-page']);
  });

  it('refuses the keys under a Host a page can point at this machine (DNS rebinding), and changes nothing', async () => {
    const before = await usernames();
    const rebound = { host: `evil.example:${port}` };
    const read = await send(port, 'GET', '/api/v1/@cms/user', { ...rebound, ...admin });
    assert.equal(read.status, 403);
    assert.equal(read.body.name, 'forbidden');
    assert.match(read.body.message, /^public demo API key refused under a Host other than localhost, an IP address or baseUrl's \(against DNS rebinding\): .*CMS_API_KEYS$/);
    const write = await send(port, 'POST', `/api/v1/@cms/user?apikey=dev-admin-key-change-me`, { ...rebound, origin: `http://evil.example:${port}` }, newAdmin('rebound'));
    assert.equal(write.status, 403);
    assert.deepEqual(await usernames(), before);
    // What a rebinding page reads without the keys is public anyway.
    const anonymous = await send(port, 'GET', '/api/v1/article', rebound);
    assert.equal(anonymous.status, 200);
  });
});

describe('CORS: any origin reads anonymously, only listed origins send credentials', () => {
  const listed = 'https://site.example';
  const other = 'https://evil.example';
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_CORS_ORIGINS: listed });
  });
  after(() => t.close());

  const preflight = (origin: string, method: string, headers?: string) =>
    t.request('OPTIONS', '/api/v1/article', {
      key: null,
      headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) },
    });

  it('grants an unlisted origin no write and no Authorization in a preflight', async () => {
    for (const [method, headers] of [['POST', 'authorization, content-type'], ['GET', 'Authorization'], ['PATCH', 'content-type'], ['DELETE', undefined]] as const) {
      const res = await preflight(other, method, headers);
      assert.equal(res.status, 204, `${method} ${headers}`);
      assert.equal(res.headers['access-control-allow-origin'], undefined, `${method} ${headers}`);
      assert.equal(res.headers['access-control-allow-methods'], undefined);
      assert.equal(res.headers['access-control-allow-headers'], undefined);
    }
  });

  it('grants a listed origin every method and the headers it asks for, without cookies', async () => {
    const res = await preflight(listed, 'PATCH', 'authorization, content-type');
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], listed);
    assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE');
    assert.equal(res.headers['access-control-allow-headers'], 'authorization, content-type');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.match(String(res.headers.vary), /\bOrigin\b/);
  });

  it('grants any origin an anonymous read, preflighted or not', async () => {
    const asked = await preflight(other, 'GET', 'if-none-match');
    assert.equal(asked.headers['access-control-allow-origin'], '*');
    assert.equal(asked.headers['access-control-allow-methods'], 'GET, HEAD');
    assert.equal(asked.headers['access-control-allow-headers'], 'if-none-match');
    const read = await t.request('GET', '/api/v1/article', { key: null, headers: { origin: other } });
    assert.equal(read.status, 200);
    assert.equal(read.headers['access-control-allow-origin'], '*');
    assert.match(String(read.headers.vary), /\bOrigin\b/);
    assert.match(String(read.headers['access-control-expose-headers']), /\bETag\b/);
  });

  it('lets only a listed origin read an answer given to credentials; a key of its own still works from anywhere', async () => {
    const fromOther = await t.request('GET', '/api/v1/note', { key: 'editor', headers: { origin: other } });
    assert.equal(fromOther.status, 200, 'the key is secret: who sends it holds it');
    assert.equal(fromOther.headers['access-control-allow-origin'], undefined);
    const inQuery = await t.request('GET', `/api/v1/note?apikey=${keys.editor}`, { key: null, headers: { origin: other } });
    assert.equal(inQuery.headers['access-control-allow-origin'], undefined);
    const write = await t.request('POST', '/api/v1/article', { key: null, headers: { origin: other }, body: { title: 'x' } });
    assert.equal(write.status, 403);
    assert.equal(write.headers['access-control-allow-origin'], undefined);
    const fromListed = await t.request('GET', '/api/v1/note', { key: 'editor', headers: { origin: listed } });
    assert.equal(fromListed.status, 200);
    assert.equal(fromListed.headers['access-control-allow-origin'], listed);
    // Its page reads the version for If-Match and the headers of retries and read replicas.
    assert.equal(fromListed.headers['access-control-expose-headers'], 'ETag, Retry-After, CMS-Read-After, Idempotency-Replayed');
    const refused = await t.request('GET', '/api/v1/note', { key: null, headers: { origin: listed, authorization: 'ApiKey wrong-key-0123456789' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers['access-control-allow-origin'], listed, 'its page may read why');
  });
});
