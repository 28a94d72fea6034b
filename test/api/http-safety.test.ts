import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

describe('request logs never hold a credential, however its name is spelled', () => {
  let t: TestApp;
  const lines: string[] = [];
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LOG_LEVEL: 'trace' }, { logStream: { write: (line) => void lines.push(line) } });
  });
  after(() => t.close());

  it('accepts a percent-encoded parameter name and logs the request without the key', async () => {
    const res = await t.request('GET', `/api/v1/article?cmsMode=draft&api%6Bey=${keys.admin}`, { key: null });
    assert.equal(res.status, 200, 'the auth hook decodes the name: the key works');
    const log = lines.join('');
    assert.match(log, /"url":"\/api\/v1\/article\?cmsMode=draft&api%6Bey=\[redacted\]"/);
    assert.ok(!log.includes(keys.admin));
  });

  it('redacts every spelling, encoding and credential-like name, on every route', async () => {
    const spellings = [
      '%61pikey', 'apiKey', 'APIKEY', 'api_key', 'Api-Key', 'apikey[]', 'apikey%5B0%5D', 'api%256Bey', '%2561%2570%2569key',
      'access_token', 'token', 'password', 'client%5Fsecret', 'cmsShareKey', 'cmsshare%4Bey',
    ];
    for (const [index, name] of spellings.entries()) {
      const secret = `secret-value-${index}-0123456789`;
      lines.length = 0;
      const res = await t.request('GET', `/api/v1/article?${name}=${secret}&page=1`, { key: null });
      assert.ok(res.status < 500, `${name}: ${res.status}`);
      const notFound = await t.request('GET', `/api/v1/nope/x?${name}=${secret}`, { key: null });
      assert.ok(notFound.status === 403 || notFound.status === 404, `${name}: ${notFound.status}`);
      const log = lines.join('');
      assert.match(log, /incoming request/, 'the requests were logged');
      assert.ok(!log.includes(secret), `${name} reached the log: ${log}`);
    }
  });

  it('logs a shared read without its share key, by the draft\'s key or a preview link', async () => {
    const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Shared in the log' } });
    const draftId: string = created.body._id;
    const permanent = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true } });
    const link = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true, expiresIn: 600 } });
    for (const key of [permanent.body.cmsShareKey, link.body.cmsShareKey] as string[]) {
      lines.length = 0;
      const read = await t.request('GET', `/api/v1/article/${draftId}?cmsShareId=${draftId}&cmsShareKey=${key}`, { key: null });
      assert.equal(read.status, 200, read.text);
      const log = lines.join('');
      assert.ok(log.includes(`"url":"/api/v1/article/${draftId}?cmsShareId=${draftId}&cmsShareKey=[redacted]"`), log);
      assert.ok(!log.includes(key), 'the key never reaches the log');
    }
  });

  it('keeps the rest of the query string readable', async () => {
    lines.length = 0;
    await t.request('GET', '/api/v1/article?search=hello&apikey=wrong-key-0123456789&page=2', { key: null });
    assert.match(lines.join(''), /"url":"\/api\/v1\/article\?search=hello&apikey=\[redacted\]&page=2"/);
  });

  it('never logs the Authorization header', async () => {
    lines.length = 0;
    const res = await t.request('GET', '/api/v1/article', { key: null, headers: { authorization: 'ApiKey header-secret-0123456789' } });
    assert.equal(res.status, 403);
    assert.ok(!lines.join('').includes('header-secret-0123456789'));
  });
});

describe('X-Content-Type-Options: nosniff on every answer', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('sends nosniff on JSON results and on every kind of error', async () => {
    const answers = [
      await t.request('GET', '/health'),
      await t.request('GET', '/api/v1/article'),
      await t.request('POST', '/api/v1/article', { body: { title: 'A' } }),
      await t.request('GET', '/api/v1/article', { key: null, headers: { authorization: 'ApiKey wrong-key-0123456789' } }),
      await t.request('GET', '/api/v1/unknown-type'),
      await t.request('POST', '/api/v1/article', { body: {} }),
      await t.request('POST', '/api/v1/article', { payload: 'text', headers: { 'content-type': 'text/plain' } }),
      await t.request('POST', '/api/v1/article', { payload: '{"title":', headers: { 'content-type': 'application/json' } }),
    ];
    assert.deepEqual(answers.map((res) => res.status), [200, 200, 200, 403, 404, 400, 415, 400]);
    for (const res of answers) {
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${res.status} ${res.text}`);
    }
  });
});

describe('HTTP that Node refuses before any route: the one JSON error shape', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp();
    port = await t.listen();
  });
  after(() => t.close());

  /** Writes raw bytes, returns everything the server sends until it closes the connection. */
  function raw(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes));
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    });
  }

  function parse(response: string): { status: number; headers: string; body: any } {
    const [head, body] = response.split('\r\n\r\n');
    return { status: Number(head!.split(' ')[1]), headers: head!.toLowerCase(), body: JSON.parse(body!) };
  }

  it('answers malformed HTTP with a 400 in the one shape', async () => {
    const res = parse(await raw('THIS IS NOT HTTP\r\n\r\n'));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { name: 'invalid', message: 'The request is not valid HTTP', data: {} });
    assert.match(res.headers, /x-content-type-options: nosniff/);
  });

  it('answers oversized headers with a 431 in the one shape', async () => {
    const res = parse(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assert.equal(res.status, 431);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
  });
});
