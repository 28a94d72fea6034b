import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, keys, type TestApp } from '../helpers/test-app.js';

describe('authentication, roles and the public projection', () => {
  let t: TestApp;
  let published: { _id: string; cmsDocId: string };
  let hidden: { _id: string };
  let userId: string;
  before(async () => {
    t = await startTestApp();
    const user = await t.request('POST', '/api/v1/@cms/user', {
      body: { title: 'Ada Author', username: 'ada', password: 'ada-password-123', role: 'editor', email: 'ada@example.com' },
    });
    assert.equal(user.status, 200, user.text);
    userId = user.body._id;
    published = (
      await t.request('POST', '/api/v1/article', {
        body: { title: 'Public One', category: 'news', priority: 7, _author: [{ _id: userId }] },
      })
    ).body;
    hidden = (await t.request('POST', '/api/v1/article', { body: { title: 'Members Only', visibility: 'loginRequired' } })).body;
    await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Secret Draft' } });
    await t.request('POST', '/api/v1/note', { body: { title: 'A Note', text: 'private' } });
  });
  after(() => t.close());

  it('accepts the API key as apikey/apiKey query parameter and as Authorization: ApiKey', async () => {
    for (const url of [`/api/v1/note?apikey=${keys.admin}`, `/api/v1/note?apiKey=${keys.admin}`]) {
      const res = await t.request('GET', url, { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    const header = await t.request('GET', '/api/v1/note', { key: null, headers: { authorization: `apikey ${keys.admin}` } });
    assert.equal(header.status, 200);
  });

  it('refuses a wrong API key with 403 in the one error shape, in the query and the header', async () => {
    const query = await t.request('GET', '/api/v1/article?apikey=wrong-key', { key: null });
    assert.equal(query.status, 403);
    assert.equal(query.body.name, 'forbidden');
    assert.match(query.body.message, /^invalid api key: /);
    const header = await t.request('POST', '/api/v1/article', {
      key: null,
      headers: { authorization: 'ApiKey wrong-key' },
      body: { title: 'x' },
    });
    assert.equal(header.status, 403);
  });

  it('shows anonymous callers only the projected properties of published, public documents', async () => {
    const list = await t.request('GET', '/api/v1/article', { key: null });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.results.map((d: { title: string }) => d.title), ['Public One']);
    const doc = list.body.results[0];
    assert.deepEqual(Object.keys(doc).sort(), ['_author', '_id', '_parentSlug', '_parentUrl', '_url', 'cacheInvalidatedAt', 'category', 'metaType', 'slug', 'title', 'type']);
    assert.deepEqual(doc._author, [], 'users are not readable anonymously, so the relationship shows empty');
    const one = await t.request('GET', `/api/v1/article/${published._id}`, { key: null });
    assert.equal(one.status, 200);
    assert.equal(one.body.priority, undefined);
    assert.equal(one.headers['cache-control'], 'no-cache', 'stored anywhere, revalidated on every use');
    assert.equal((await t.request('GET', `/api/v1/article/${hidden._id}`, { key: null })).status, 404);
  });

  it('lets a guest key see loginRequired documents, still through the projection', async () => {
    const list = await t.request('GET', '/api/v1/article', { key: 'guest' });
    assert.deepEqual(list.body.results.map((d: { title: string }) => d.title).sort(), ['Members Only', 'Public One']);
    assert.equal(list.body.results[0].priority, undefined);
  });

  it('shows everything to callers with API access, relationships expanded', async () => {
    const one = await t.request('GET', `/api/v1/article/${published._id}`, { key: 'contributor' });
    assert.equal(one.body.priority, 7);
    assert.deepEqual(one.body.authorIds, [userId]);
    assert.equal(one.body._author.length, 0, 'contributors cannot read users');
    const admin = await t.request('GET', `/api/v1/article/${published._id}`);
    assert.equal(admin.body._author[0]._id, userId);
    assert.equal(admin.body._author[0].title, 'Ada Author');
    assert.deepEqual(admin.body._author[0]._fields, {});
    assert.equal(admin.body._author[0].password, undefined);
  });

  it('leaves a relationship alone when the caller cannot read its type', async () => {
    const res = await t.request('PATCH', `/api/v1/article/${published._id}`, { key: 'editor', body: { _author: [], category: 'edited' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.category, 'edited');
    assert.deepEqual(res.body.authorIds, [userId]);
  });

  it('lists only the versions an anonymous caller could read in :_id/locales', async () => {
    const res = await t.request('GET', `/api/v1/article/${hidden._id}/locales`, { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.results, []);
    const admin = await t.request('GET', `/api/v1/article/${hidden._id}/locales`);
    assert.equal(admin.body.results.length, 2);
  });

  it('answers CORS preflights with 204: reads for any origin, writes only for listed ones (none here)', async () => {
    const preflight = (method: string) =>
      t.request('OPTIONS', '/api/v1/article/x', { key: null, headers: { origin: 'https://site.example', 'access-control-request-method': method } });
    const read = await preflight('GET');
    assert.equal(read.status, 204);
    assert.equal(read.headers['access-control-allow-origin'], '*');
    assert.equal(read.headers['access-control-allow-methods'], 'GET, HEAD');
    const write = await preflight('PATCH');
    assert.equal(write.status, 204);
    assert.equal(write.headers['access-control-allow-origin'], undefined);
  });

  it('refuses drafts to callers without draft access (403), and types without projection (404)', async () => {
    const draftList = await t.request('GET', '/api/v1/article?cmsMode=draft', { key: null });
    assert.equal(draftList.status, 403);
    assert.equal(draftList.body.name, 'forbidden');
    const draftOne = await t.request('GET', `/api/v1/article/${published.cmsDocId}:en:draft`, { key: 'guest' });
    assert.equal(draftOne.status, 403);
    const notes = await t.request('GET', '/api/v1/note', { key: null });
    assert.equal(notes.status, 404);
    assert.deepEqual(notes.body, { name: 'notfound', message: 'notfound', data: {} });
    assert.equal((await t.request('GET', '/api/v1/note', { key: 'guest' })).status, 404);
    assert.equal((await t.request('GET', '/api/v1/note', { key: 'contributor' })).status, 200);
  });

  it('refuses every write without credentials with 403 and changes nothing', async () => {
    const before = await t.request('GET', '/api/v1/article?perPage=100');
    const attempts = [
      t.request('POST', '/api/v1/article', { key: null, body: { title: 'x' } }),
      t.request('PUT', `/api/v1/article/${published._id}`, { key: null, body: { title: 'x' } }),
      t.request('PATCH', `/api/v1/article/${published._id}`, { key: null, body: { title: 'x' } }),
      t.request('DELETE', `/api/v1/article/${published._id}`, { key: null }),
      t.request('POST', `/api/v1/article/${published._id}/publish`, { key: null }),
      t.request('POST', '/api/v1/note', { key: 'guest', body: { title: 'x' } }),
    ];
    for (const res of await Promise.all(attempts)) {
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.name, 'forbidden');
    }
    const after = await t.request('GET', '/api/v1/article?perPage=100');
    assert.deepEqual(after.body, before.body);
  });

  it('lets contributors write drafts but not published versions, and not publish', async () => {
    const published = await t.request('POST', '/api/v1/article', { key: 'contributor', body: { title: 'Nope' } });
    assert.equal(published.status, 403);
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Contributed' } });
    assert.equal(draft.status, 200);
    assert.equal(draft.body._publish, undefined);
    const publish = await t.request('POST', `/api/v1/article/${draft.body._id}/publish`, { key: 'contributor' });
    assert.equal(publish.status, 403);
    const editorPublish = await t.request('POST', `/api/v1/article/${draft.body._id}/publish`, { key: 'editor' });
    assert.equal(editorPublish.status, 200);
  });

  it('keeps users to admins and never returns a password', async () => {
    const user = await t.request('GET', `/api/v1/@cms/user/${userId}`);
    assert.equal(user.status, 200);
    assert.equal(user.body._id, userId);
    assert.equal(user.body.cmsLocale, undefined);
    assert.equal(user.body.username, 'ada');
    assert.equal(user.body.role, 'editor');
    assert.equal(user.body.password, undefined);
    assert.ok(!user.text.includes('scrypt'));
    assert.equal((await t.request('GET', `/api/v1/@cms/user/${userId}`, { key: 'editor' })).status, 404);
    assert.equal((await t.request('GET', '/api/v1/@cms/user', { key: null })).status, 404);
    assert.equal((await t.request('POST', '/api/v1/@cms/user', { key: 'editor', body: { title: 'x', username: 'x' } })).status, 403);
    const badRole = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Bad', username: 'bad', role: 'root' } });
    assert.equal(badRole.status, 400);
    assert.equal(badRole.body.data.errors[0].path, 'role');
    const duplicate = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Ada Two', username: 'ada' } });
    assert.equal(duplicate.status, 409);
  });

  it('logs a user in for a bearer token that acts as that user; a bad token is 401', async () => {
    const bad = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'ada', password: 'wrong' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { name: 'invalid', message: 'Your credentials are incorrect, or there is no such user', data: {} });
    const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'ada', password: 'ada-password-123' } });
    assert.equal(login.status, 200, login.text);
    const bearer = { authorization: `Bearer ${login.body.token}` };
    const drafts = await t.request('GET', '/api/v1/article?cmsMode=draft', { key: null, headers: bearer });
    assert.equal(drafts.status, 200);
    const created = await t.request('POST', '/api/v1/note', { key: null, headers: bearer, body: { title: 'By Ada' } });
    assert.deepEqual(created.body.updatedBy, { _id: userId, title: 'Ada Author', username: 'ada' });
    const whoami = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: bearer });
    assert.equal(whoami.body.username, 'ada');
    const logout = await t.request('POST', '/api/v1/@cms/login/logout', { key: null, headers: bearer });
    assert.equal(logout.status, 200);
    const after = await t.request('GET', '/api/v1/article', { key: null, headers: bearer });
    assert.equal(after.status, 401);
    assert.equal(after.body.name, 'unauthorized');
    assert.match(after.body.message, /^bearer token invalid: /);
  });
});
