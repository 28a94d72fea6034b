import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { cheapPasswordHasher, signedInUser, startTestApp, testConfig, type SignedInUser, type TestApp } from '../helpers/test-app.js';

/*
 * GET and PATCH /api/v1/@cms/preferences: each signed-in user's admin preferences (theme,
 * language, list columns), merged on PATCH, validated whole before anything is stored.
 */

const url = '/api/v1/@cms/preferences';
const defaults = { theme: 'system', language: null, lists: {} };

describe('per-user preferences', () => {
  let t: TestApp;
  let storage: StorageAdapter | undefined;
  let alice: SignedInUser;
  let bob: SignedInUser;
  const get = (user: SignedInUser) => t.request('GET', url, { key: null, headers: user.headers });
  const patch = (user: SignedInUser, body: unknown) => t.request('PATCH', url, { key: null, headers: user.headers, body });

  before(async () => {
    const limits = { CMS_LIMIT_PREFERENCES_LIST_COLUMNS: '3', CMS_LIMIT_PREFERENCES_LIST_TYPES: '2', CMS_LIMIT_PREFERENCES_BYTES: '1024', CMS_LIMIT_PREFERENCES_NAME_LENGTH: '300' };
    t = await startTestApp(testConfig(), limits, { passwordHasher: cheapPasswordHasher(), wrapStorage: (adapter) => (storage = adapter) });
    alice = await signedInUser(t, 'alice', 'editor');
    bob = await signedInUser(t, 'bob', 'guest');
  });
  after(() => t.close());

  it('answers the defaults to a user who saved none, and not for a shared cache', async () => {
    const res = await get(alice);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, defaults);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('merges what a PATCH sends and answers the whole, kept for the next GET', async () => {
    const themed = await patch(alice, { theme: 'dark' });
    assert.equal(themed.status, 200, themed.text);
    assert.deepEqual(themed.body, { ...defaults, theme: 'dark' });
    const listed = await patch(alice, { language: 'fr', lists: { article: { columns: ['title', 'updatedAt'], sort: '-updatedAt' } } });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, { theme: 'dark', language: 'fr', lists: { article: { columns: ['title', 'updatedAt'], sort: '-updatedAt' } } });
    // A type's entry merges key by key; null removes it; null language goes back to the browser's.
    const paged = await patch(alice, { lists: { article: { perPage: 50 }, note: { sort: 'title' } } });
    assert.deepEqual(paged.body.lists, { article: { columns: ['title', 'updatedAt'], sort: '-updatedAt', perPage: 50 }, note: { sort: 'title' } });
    const removed = await patch(alice, { language: null, lists: { note: null } });
    assert.deepEqual(removed.body, { theme: 'dark', language: null, lists: { article: { columns: ['title', 'updatedAt'], sort: '-updatedAt', perPage: 50 } } });
    assert.deepEqual((await get(alice)).body, removed.body);
    assert.deepEqual((await patch(alice, {})).body, removed.body, 'an empty patch changes nothing');
  });

  it('keeps each user their own: one never sees nor changes another\'s', async () => {
    await patch(alice, { theme: 'light' });
    const bobs = await patch(bob, { theme: 'dark', language: 'de' });
    assert.equal(bobs.status, 200, bobs.text);
    assert.deepEqual(bobs.body, { theme: 'dark', language: 'de', lists: {} }, 'a guest keeps preferences too');
    const alices = await get(alice);
    assert.equal(alices.body.theme, 'light');
    assert.equal(alices.body.language, null);
    assert.equal((await get(bob)).body.theme, 'dark');
  });

  it('works with a session, which needs its CSRF token to write', async () => {
    const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'alice', password: 'alice-password-123', session: true } });
    assert.equal(login.status, 200, login.text);
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] as string | string[]).map((line) => line.split(';')[0]).join('; ');
    const read = await t.request('GET', url, { key: null, headers: { cookie } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.theme, 'light');
    const noToken = await t.request('PATCH', url, { key: null, headers: { cookie }, body: { theme: 'system' } });
    assert.equal(noToken.status, 403, noToken.text);
    const written = await t.request('PATCH', url, { key: null, headers: { cookie, 'x-csrf-token': login.body.csrfToken }, body: { theme: 'system' } });
    assert.equal(written.status, 200, written.text);
    assert.equal(written.body.theme, 'system');
  });

  it('refuses API keys and anonymous callers with 403, as presence does', async () => {
    for (const key of ['admin', 'guest'] as const) {
      for (const method of ['GET', 'PATCH'] as const) {
        const res = await t.request(method, url, { key, body: method === 'PATCH' ? { theme: 'dark' } : undefined });
        assert.equal(res.status, 403, `${key} ${method}: ${res.text}`);
        assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
        assert.equal(res.body.name, 'forbidden');
      }
    }
    const anonymous = await t.request('GET', url, { key: null });
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal((await t.request('PATCH', url, { key: null, body: { theme: 'dark' } })).status, 403);
  });

  it('refuses a hostile or malformed body with 400 and stores nothing of it', async () => {
    const before = (await get(alice)).body;
    const refused: [unknown, string][] = [
      [{ theme: 'blue' }, 'theme'],
      [{ colour: 'dark' }, 'colour'],
      [{ theme: 'dark', lists: { article: { columns: ['title'], width: 3 } } }, 'lists.article.width'],
      [{ language: 'english-with-a-much-too-long-tag' }, 'language'],
      [{ language: 'e' }, 'language'],
      [{ language: 'en;drop' }, 'language'],
      [{ lists: { nosuchtype: { sort: 'title' } } }, 'lists.nosuchtype'],
      [{ lists: { article: { columns: ['a', 'b', 'c', 'd'] } } }, 'lists.article.columns'],
      [{ lists: { article: { columns: ['a', 'a'] } } }, 'lists.article.columns'],
      [{ lists: { article: { columns: [''] } } }, 'lists.article.columns.0'],
      [{ lists: { article: { columns: [3] } } }, 'lists.article.columns.0'],
      [{ lists: { article: { perPage: 0 } } }, 'lists.article.perPage'],
      [{ lists: { article: { perPage: 101 } } }, 'lists.article.perPage'],
      [{ lists: { article: { perPage: 2.5 } } }, 'lists.article.perPage'],
      [{ lists: { article: { sort: 'x'.repeat(301) } } }, 'lists.article.sort'],
      [{ lists: { article: {}, note: {}, '@cms/user': {} } }, 'lists'],
      [{ lists: [] }, 'lists'],
      [[], ''],
      [null, ''],
      ['dark', ''],
    ];
    for (const [body, path] of refused) {
      const res = await patch(alice, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.equal(res.body.data.path, path, JSON.stringify(body));
    }
    assert.equal((await patch(alice, { theme: 'blue' })).body.message, 'theme must be one of system, light, dark');
    assert.equal((await patch(alice, { colour: 'dark' })).body.message, 'Unknown key colour in preferences');
    assert.equal((await patch(alice, { lists: { article: { perPage: 0 } } })).body.message, 'lists.article.perPage expected integer to be greater or equal to 1');
    for (const payload of ['{"__proto__":{"theme":"dark"}}', '{"lists":{"__proto__":{"sort":"x"}}}', '{"lists":{"constructor":{"prototype":{}}}}']) {
      const res = await t.request('PATCH', url, { key: null, headers: { ...alice.headers, 'content-type': 'application/json' }, payload });
      assert.equal(res.status, 400, `${payload}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
    }
    const json = { ...alice.headers, 'content-type': 'application/json' };
    const huge = '{"lists":{"article":{"columns":[' + Array.from({ length: 20_000 }, () => '"x"').join(',') + ']}}}';
    for (const payload of ['', '{"theme":', `{"theme":${'['.repeat(5000)}${']'.repeat(5000)}}`, huge]) {
      const res = await t.request('PATCH', url, { key: null, headers: json, payload });
      assert.equal(res.status, 400, `${payload.slice(0, 40)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
    }
    const text = await t.request('PATCH', url, { key: null, headers: { ...alice.headers, 'content-type': 'text/plain' }, payload: 'theme=dark' });
    assert.equal(text.status, 415, text.text);
    // No user id to name: the route keeps the caller's own, whatever the body or query say.
    assert.equal((await patch(alice, { userId: bob.id })).body.data.path, 'userId');
    const queried = await t.request('PATCH', `${url}?userId=${bob.id}`, { key: null, headers: alice.headers, body: {} });
    assert.deepEqual(queried.body, before);
    assert.deepEqual((await get(alice)).body, before, 'nothing stored');
  });

  it('refuses more types than limits.preferencesListTypes after the merge, and more bytes than limits.preferencesBytes', async () => {
    await patch(alice, { lists: { article: { sort: 'title' }, note: { sort: 'title' } } });
    const third = await patch(alice, { lists: { '@cms/user': { sort: 'title' } } });
    assert.equal(third.status, 400, third.text);
    assert.deepEqual(third.body.data, { path: 'lists', limit: 'preferencesListTypes' });
    const big = await patch(alice, { lists: { article: { columns: ['x'.repeat(300), 'y'.repeat(300), 'z'.repeat(300)] }, note: { sort: 'w'.repeat(300) } } });
    assert.equal(big.status, 413, big.text);
    assert.equal(big.body.name, 'toolarge');
    assert.equal(big.body.data.limit, 'preferencesBytes');
    const kept = (await get(alice)).body.lists;
    assert.deepEqual(Object.keys(kept).sort(), ['article', 'note']);
    assert.equal(kept.note.sort, 'title', 'nothing of the refused saves stored');
  });

  it('removes a user\'s preferences with the user', async () => {
    const carol = await signedInUser(t, 'carol', 'contributor');
    assert.equal((await patch(carol, { theme: 'dark' })).status, 200);
    const stored = await storage!.preferences.get(carol.id);
    assert.equal(stored?.userId, carol.id);
    assert.deepEqual(JSON.parse(stored!.json), { theme: 'dark', language: null, lists: {} });
    const deleted = await t.request('DELETE', `/api/v1/@cms/user/${carol.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await storage!.preferences.get(carol.id), null);
  });
});
