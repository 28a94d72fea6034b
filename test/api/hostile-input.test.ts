import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

describe('validation and hostile input: one error shape, nothing stored', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ ...testConfig(), bodyLimit: 64 * 1024 });
  });
  after(() => t.close());

  async function count(): Promise<number> {
    const res = await t.request('GET', '/api/v1/article?cmsMode=draft&perPage=1');
    return res.body.pages;
  }

  function assertErrorShape(body: Record<string, unknown>) {
    assert.deepEqual(Object.keys(body).sort(), ['data', 'message', 'name']);
    assert.equal(typeof body.name, 'string');
    assert.equal(typeof body.message, 'string');
    assert.equal(typeof body.data, 'object');
  }

  it('names each failing field with the original error entries', async () => {
    const res = await t.request('POST', '/api/v1/article', {
      body: { category: ['not', 'a', 'string'], priority: 'abc', color: 'green', tags: ['nope'] },
    });
    assert.equal(res.status, 400);
    assertErrorShape(res.body);
    assert.equal(res.body.name, 'invalid');
    const byPath = Object.fromEntries(res.body.data.errors.map((e: { path: string }) => [e.path, e]));
    assert.deepEqual(byPath.title, { name: 'required', code: 422, message: 'required', path: 'title', data: {} });
    assert.equal(byPath.priority.name, 'invalid');
    assert.equal(byPath.priority.code, 400);
    assert.equal(byPath.category.name, 'invalid');
    assert.equal(byPath.color.name, 'invalid');
    assert.equal(byPath.tags.name, 'invalid');
  });

  it('converts lossless values and refuses lossy ones', async () => {
    const ok = await t.request('POST', '/api/v1/article', { body: { title: 12345, priority: '12', category: 7 } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.title, '12345');
    assert.equal(ok.body.priority, 12);
    assert.equal(ok.body.category, '7');
    for (const priority of ['2.5', 2.5, '1e400', true, {}, 101, -1]) {
      const res = await t.request('POST', '/api/v1/article', { body: { title: 'Lossy', priority } });
      assert.equal(res.status, 400, `priority ${JSON.stringify(priority)}`);
      assert.equal(res.body.data.errors[0].path, 'priority');
    }
  });

  it('refuses malformed JSON, non-object bodies, wrong content types and huge bodies', async () => {
    const before = await count();
    const malformed = await t.request('POST', '/api/v1/article', {
      payload: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assertErrorShape(malformed.body);
    for (const body of [[1, 2], 'a string', 42, null]) {
      const res = await t.request('POST', '/api/v1/article', { body });
      assert.equal(res.status, 400, `body ${JSON.stringify(body)}`);
      assertErrorShape(res.body);
    }
    const text = await t.request('POST', '/api/v1/article', { payload: 'title=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
    assertErrorShape(text.body);
    assert.equal(text.body.name, 'unsupported');
    const huge = await t.request('POST', '/api/v1/article', { body: { title: 'x'.repeat(100 * 1024) } });
    assert.equal(huge.status, 413);
    assertErrorShape(huge.body);
    assert.equal(huge.body.name, 'toolarge');
    assert.equal(await count(), before);
  });

  it('refuses __proto__, constructor and prototype keys anywhere, naming the path', async () => {
    const before = await count();
    const payloads = [
      ['{"title":"x","__proto__":{"polluted":true}}', '__proto__'],
      ['{"title":"x","links":[{"label":"a","constructor":{"prototype":1}}]}', 'links.0.constructor'],
      ['{"title":"x","body":{"items":[{"type":"@cms/rich-text","prototype":"y"}]}}', 'body.items.0.prototype'],
    ];
    for (const [payload, path] of payloads) {
      const res = await t.request('POST', '/api/v1/article', { payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, payload);
      assert.equal(res.body.name, 'invalid');
      assert.equal(res.body.data.errors[0].path, path);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(await count(), before);
  });

  it('refuses absurdly deep nesting', async () => {
    const payload = `{"title":"deep","category":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await t.request('POST', '/api/v1/article', { payload, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assertErrorShape(res.body);
  });

  it('refuses absurd query values with 400', async () => {
    const urls = [
      '/api/v1/article?page=0',
      '/api/v1/article?page=-3',
      '/api/v1/article?page=abc',
      '/api/v1/article?page=1e400',
      '/api/v1/article?perPage=0',
      '/api/v1/article?page=1&page=2',
      '/api/v1/article?cmsMode=previous',
      '/api/v1/article?cmsLocale=xx',
      '/api/v1/article?cmsLocale[$ne]=en',
      `/api/v1/article?cmsLocale=${'e'.repeat(100)}`,
    ];
    for (const url of urls) {
      const res = await t.request('GET', url);
      assert.equal(res.status, 400, `${url} -> ${res.status} ${res.text}`);
      assertErrorShape(res.body);
    }
  });

  it('refuses ids with path tricks or absurd length without a 500', async () => {
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%00', 'a:b:c:d', 'x'.repeat(500), 'abc:xx:published', 'abc:en:previous']) {
      const res = await t.request('GET', `/api/v1/article/${id}`);
      assert.ok([400, 404].includes(res.status), `${id} -> ${res.status}`);
      assertErrorShape(res.body);
    }
  });
});
