import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, hotp, totpStep } from '../../src/auth/totp.js';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

const base = '/api/v1/@cms/login';

/** Codes of an authenticator app, each of a later step than the last one used (a code works once). */
class Authenticator {
  #last = -Infinity;
  constructor(readonly secret: string) {}

  next(): string {
    const now = totpStep(Date.now());
    const step = Math.max(now - 1, this.#last + 1);
    assert.ok(step <= now + 1, 'no step left in the window');
    this.#last = step;
    return hotp(base32Decode(this.secret)!, step);
  }

  /** A code of no step in the window. */
  wrong(): string {
    return hotp(base32Decode(this.secret)!, totpStep(Date.now()) + 5);
  }
}

describe('TOTP second factors', () => {
  let t: TestApp;
  let userNumber = 0;

  before(async () => {
    t = await startTestApp({ ...testConfig(), login: { totp: { requiredRoles: ['editor'], issuer: 'Test CMS' } } }, {}, { passwordHasher: cheapPasswordHasher() });
  });
  after(() => t.close());

  async function newUser(role = 'contributor') {
    const username = `totp-user-${++userNumber}`;
    const password = `${username}-password`;
    const res = await t.request('POST', '/api/v1/@cms/user', { body: { title: username, username, password, role, email: `${username}@example.com` } });
    assert.equal(res.status, 200, res.text);
    return { username, password, id: res.body._id as string };
  }

  const post = (url: string, body: unknown, token?: string) =>
    t.request('POST', `${base}${url}`, { body, key: null, headers: token ? { authorization: `Bearer ${token}` } : {} });

  async function bearer(username: string, password: string, extra: Record<string, unknown> = {}) {
    const res = await post('/login', { username, password, ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body.token as string;
  }

  /** A user with TOTP on, signed in with a bearer token. */
  async function withTotp() {
    const user = await newUser();
    const token = await bearer(user.username, user.password);
    const setup = await post('/totp/setup', {}, token);
    assert.equal(setup.status, 200, setup.text);
    const app = new Authenticator(setup.body.secret);
    const enabled = await post('/totp/enable', { code: app.next() }, token);
    assert.equal(enabled.status, 200, enabled.text);
    return { ...user, token, app, recoveryCodes: enabled.body.recoveryCodes as string[] };
  }

  it('sets up, enables and signs in with a code; a code works once; whoami and status tell', async () => {
    const user = await newUser();
    const token = await bearer(user.username, user.password);
    const whoami = await t.request('GET', `${base}/whoami`, { key: null, headers: { authorization: `Bearer ${token}` } });
    assert.equal(whoami.body.totp, undefined, 'whoami keeps the original shape');
    assert.equal((await t.request('GET', `${base}/totp`, { key: null, headers: { authorization: `Bearer ${token}` } })).body.enabled, false);

    const setup = await post('/totp/setup', {}, token);
    assert.equal(setup.status, 200, setup.text);
    assert.match(setup.body.secret, /^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.searchParams.get('secret'), setup.body.secret);
    assert.equal(url.searchParams.get('issuer'), 'Test CMS');
    assert.match(decodeURIComponent(url.pathname), new RegExp(`${user.username}@example.com$`));

    const app = new Authenticator(setup.body.secret);
    // Pending: login still takes the password alone.
    await bearer(user.username, user.password);
    const wrong = await post('/totp/enable', { code: app.wrong() }, token);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.name, 'invalid');
    const enabled = await post('/totp/enable', { code: app.next() }, token);
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.recoveryCodes.length, 10);
    assert.equal(new Set(enabled.body.recoveryCodes).size, 10);
    assert.equal((await post('/totp/setup', {}, token)).status, 409, 'a second setup while on');

    const again = await t.request('GET', `${base}/totp`, { key: null, headers: { authorization: `Bearer ${token}` } });
    assert.equal(again.body.enabled, true);

    const bare = await post('/login', { username: user.username, password: user.password });
    assert.equal(bare.status, 401);
    assert.equal(bare.body.name, 'totp-required');
    assert.equal(bare.body.token, undefined);
    const sessionBare = await post('/login', { username: user.username, password: user.password, session: true });
    assert.equal(sessionBare.status, 401);
    assert.equal(sessionBare.body.name, 'totp-required');
    assert.equal(sessionBare.headers['set-cookie'], undefined, 'no session cookie without the code');

    const code = app.next();
    await bearer(user.username, user.password, { totp: code });
    const replay = await post('/login', { username: user.username, password: user.password, totp: code });
    assert.equal(replay.status, 400, 'the same code again');
    const session = await post('/login', { username: user.username, password: user.password, session: true, totp: app.next() });
    assert.equal(session.status, 200, session.text);
    assert.equal(typeof session.body.csrfToken, 'string');

    const status = await t.request('GET', `${base}/totp`, { key: null, headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual(status.body, { enabled: true, pending: false, required: false, recoveryCodesLeft: 10 });
  });

  it('a recovery code signs in once, in any case and spacing', async () => {
    const user = await withTotp();
    const [first, second] = user.recoveryCodes;
    await bearer(user.username, user.password, { recoveryCode: first });
    const again = await post('/login', { username: user.username, password: user.password, recoveryCode: first });
    assert.equal(again.status, 400);
    await bearer(user.username, user.password, { recoveryCode: ` ${second!.toUpperCase().replace('-', ' ')} ` });
    const status = await t.request('GET', `${base}/totp`, { key: null, headers: { authorization: `Bearer ${user.token}` } });
    assert.equal(status.body.recoveryCodesLeft, 8);
    const audit = await t.request('GET', `/api/v1/@cms/audit?action=login.recovery&perPage=100`);
    assert.equal(audit.status, 200, audit.text);
    assert.equal(audit.body.results.filter((r: { ids: string[] }) => r.ids.includes(user.id)).length, 2);
    const enabledAudit = await t.request('GET', `/api/v1/@cms/audit?action=login.totp.enable&perPage=100`);
    assert.ok(enabledAudit.body.results.some((r: { ids: string[] }) => r.ids.includes(user.id)));
  });

  it('wrong codes count as failed logins: the account locks as for wrong passwords', async () => {
    const user = await withTotp();
    for (let n = 0; n < 3; n++) {
      const res = await post('/login', { username: user.username, password: user.password, totp: user.app.wrong() });
      assert.equal(res.status, 400, `attempt ${n + 1}`);
    }
    const locked = await post('/login', { username: user.username, password: user.password, totp: user.app.next() });
    assert.equal(locked.status, 429);
    assert.equal(locked.body.name, 'toomany');
    const failed = await t.request('GET', `/api/v1/@cms/audit?action=login.failed&perPage=100`);
    assert.equal(failed.body.results.filter((r: { ids: string[] }) => r.ids.includes(user.id)).length, 3);
  });

  it('disable takes the password or a current code, not a wrong one', async () => {
    const user = await withTotp();
    const wrong = await post('/totp/disable', { password: 'not the password' }, user.token);
    assert.equal(wrong.status, 400);
    const off = await post('/totp/disable', { code: user.app.next() }, user.token);
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body, { totp: false });
    await bearer(user.username, user.password);
    assert.equal((await post('/totp/disable', { password: user.password }, user.token)).status, 409, 'already off');
    const other = await withTotp();
    assert.equal((await post('/totp/disable', { password: other.password }, other.token)).status, 200);
  });

  it('a required role without TOTP gets a setup token for setting it up only, then signs in with a code', async () => {
    const user = await newUser('editor');
    const first = await post('/login', { username: user.username, password: user.password });
    assert.equal(first.status, 401);
    assert.equal(first.body.name, 'totp-setup-required');
    const { setupToken } = first.body.data;
    assert.equal(typeof setupToken, 'string');
    assert.equal(first.body.data.expiresIn, 600);
    // The setup token is no credential.
    const asBearer = await t.request('GET', `${base}/whoami`, { key: null, headers: { authorization: `Bearer ${setupToken}` } });
    assert.equal(asBearer.status, 401);

    const setup = await post('/totp/setup', { setupToken });
    assert.equal(setup.status, 200, setup.text);
    const app = new Authenticator(setup.body.secret);
    const enabled = await post('/totp/enable', { setupToken, code: app.next() });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal((await post('/totp/setup', { setupToken })).status, 401, 'the setup token is used up');

    const token = await bearer(user.username, user.password, { totp: app.next() });
    const status = await t.request('GET', `${base}/totp`, { key: null, headers: { authorization: `Bearer ${token}` } });
    assert.equal(status.body.required, true);
    const disable = await post('/totp/disable', { password: user.password }, token);
    assert.equal(disable.status, 403, 'a required role cannot turn it off');
  });

  it('hostile bodies and callers: 4xx in the error shape, nothing changed', async () => {
    const user = await withTotp();
    const cases: unknown[] = [
      { username: user.username, password: user.password, totp: 123456 },
      { username: user.username, password: user.password, totp: 'x'.repeat(100_000) },
      { username: user.username, password: user.password, recoveryCode: ['a'] },
    ];
    for (const body of cases) {
      const res = await post('/login', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
    }
    const proto = await t.request('POST', `${base}/totp/enable`, {
      key: null,
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      payload: '{"__proto__":{"code":"123456"}}',
    });
    assert.equal(proto.status, 400);
    assert.equal((await post('/totp/setup', {})).status, 401, 'anonymous');
    assert.equal((await post('/totp/setup', { setupToken: 'made-up' })).status, 401);
    assert.equal((await post('/totp/setup', { setupToken: 42 })).status, 400);
    const apiKey = await t.request('POST', `${base}/totp/setup`, { body: {} });
    assert.equal(apiKey.status, 401, 'an API key has no account');
    assert.equal((await post('/totp/enable', { code: 'abcdef' }, user.token)).status, 409, 'already on');
    // Still on, codes unchanged.
    await bearer(user.username, user.password, { recoveryCode: user.recoveryCodes[9] });
  });
});
