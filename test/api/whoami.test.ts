import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { loadAppConfig } from '../../src/load-app-config.js';

const whoamiUrl = '/api/v1/@cms/login/whoami';
const loginUrl = '/api/v1/@cms/login/login';

async function createUser(t: TestApp, user: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', '/api/v1/@cms/user', { body: user });
  assert.equal(res.status, 200, res.text);
  return res.body._id;
}

async function bearer(t: TestApp, username: string, password: string): Promise<Record<string, string>> {
  const res = await t.request('POST', loginUrl, { key: null, body: { username, password } });
  assert.equal(res.status, 200, res.text);
  return { authorization: `Bearer ${res.body.token}` };
}

/** The `Cookie` header of a session login, and its CSRF token. */
async function session(t: TestApp, username: string, password: string): Promise<{ cookie: string; csrfToken: string }> {
  const res = await t.request('POST', loginUrl, { key: null, body: { username, password, session: true } });
  assert.equal(res.status, 200, res.text);
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
  return { cookie: cookies.map((line) => line.split(';')[0]).join('; '), csrfToken: res.body.csrfToken };
}

describe('whoami answers what the original does', () => {
  let t: TestApp;
  let adaId: string;
  before(async () => {
    t = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher() });
    adaId = await createUser(t, { username: 'ada', title: 'Ada L.', email: 'ada@example.com', password: 'ada-password-1', role: 'editor' });
  });
  after(() => t.close());

  it('answers _id, username, title and email of a bearer token user, on GET and POST, and no role', async () => {
    const headers = await bearer(t, 'ada', 'ada-password-1');
    for (const method of ['GET', 'POST'] as const) {
      const res = await t.request(method, whoamiUrl, { key: null, headers });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { _id: adaId, username: 'ada', title: 'Ada L.', email: 'ada@example.com' });
    }
  });

  it('gives a session caller its CSRF token as well', async () => {
    const { cookie, csrfToken } = await session(t, 'ada', 'ada-password-1');
    const res = await t.request('GET', whoamiUrl, { key: null, headers: { cookie } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { _id: adaId, username: 'ada', title: 'Ada L.', email: 'ada@example.com', csrfToken });
  });

  it('answers an API key as its System Task user, and an anonymous caller 404', async () => {
    for (const key of ['admin', 'guest'] as const) {
      const res = await t.request('GET', whoamiUrl, { key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { title: 'System Task' });
    }
    const anonymous = await t.request('POST', whoamiUrl, { key: null });
    assert.equal(anonymous.status, 404, anonymous.text);
    assert.equal(anonymous.body.name, 'notfound');
  });

  it('sees a change to the user at once (the answer is read from the user, not the sign-in)', async () => {
    const headers = await bearer(t, 'ada', 'ada-password-1');
    const renamed = await t.request('PATCH', `/api/v1/@cms/user/${adaId}`, { body: { title: 'Countess' } });
    assert.equal(renamed.status, 200, renamed.text);
    const res = await t.request('GET', whoamiUrl, { key: null, headers });
    assert.equal(res.body.title, 'Countess');
  });
});

describe('login.whoamiFields', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig() as Record<string, any>;
    config.login = { whoamiFields: ['role', 'nickname'] };
    config.modules['@cms/user'] = { extend: '@cms/piece-type', fields: { add: { nickname: { type: 'string' } } } };
    t = await startTestApp(config, {}, { passwordHasher: cheapPasswordHasher() });
    await createUser(t, { username: 'grace', title: 'Grace H.', password: 'grace-password-1', role: 'contributor', nickname: 'Amazing' });
  });
  after(() => t.close());

  it('adds the named fields of the user to the answer', async () => {
    const res = await t.request('GET', whoamiUrl, { key: null, headers: await bearer(t, 'grace', 'grace-password-1') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.role, 'contributor');
    assert.equal(res.body.nickname, 'Amazing');
    assert.equal(res.body.username, 'grace');
  });

  it('gives an API key its role when `role` is named, and nothing it does not have', async () => {
    const res = await t.request('POST', whoamiUrl, { key: 'editor' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { title: 'System Task', role: 'editor' });
  });

  it('refuses at start a name that is not a user field whoami may show', async () => {
    for (const [names, named] of [
      [['password'], /login\.whoamiFields\.0: "password" is not a user field/],
      [['role', 'nope'], /login\.whoamiFields\.1: "nope"/],
      [['_author'], /login\.whoamiFields\.0/],
      ['role', /login\.whoamiFields/],
    ] as const) {
      const config = { ...testConfig(), login: { whoamiFields: names } };
      await assert.rejects(loadAppConfig({ config, env: {} }), named);
    }
    await assert.rejects(loadAppConfig({ config: { ...testConfig(), login: { fields: [] } }, env: {} }), /login/);
  });
});
