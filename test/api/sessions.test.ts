import { describe, it, before, after, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';

const loginUrl = '/api/v1/@cms/login/login';
const ownOrigin = 'http://cms.test';
// Cheap scrypt: these tests are about cookies, not password hashing.

interface Session {
  /** The `Cookie` header a browser would send back. */
  cookie: string;
  csrfToken: string;
  setCookies: string[];
}

function setCookiesOf(res: TestResponse): string[] {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : ([] as string[]).concat(header as string | string[]);
}

async function signIn(t: TestApp, username = 'ada', headers: Record<string, string> = {}): Promise<Session> {
  const res = await t.request('POST', loginUrl, { key: null, headers, body: { username, password: `${username}-password-1`, session: true } });
  assert.equal(res.status, 200, res.text);
  const setCookies = setCookiesOf(res);
  const cookie = setCookies.map((line) => line.split(';')[0]).join('; ');
  return { cookie, csrfToken: res.body.csrfToken, setCookies };
}

/** A request as the browser sends it with the session's cookies. */
function asBrowser(t: TestApp, session: Session, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  return t.request(method, url, { key: null, body: options.body, headers: { cookie: session.cookie, ...options.headers } });
}

async function noteTitles(t: TestApp): Promise<string[]> {
  const res = await t.request('GET', '/api/v1/note');
  return res.body.results.map((doc: { title: string }) => doc.title);
}

describe('signing in with a session cookie', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher() });
    for (const [username, role] of [['ada', 'editor'], ['bob', 'editor']]) {
      const res = await t.request('POST', '/api/v1/@cms/user', {
        body: { title: username, username, password: `${username}-password-1`, role, email: `${username}@example.com` },
      });
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => t.close());

  it('answers the CSRF token and sets an HttpOnly, SameSite=Strict session cookie plus a readable CSRF cookie', async () => {
    const session = await signIn(t);
    assert.match(session.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    const [sid, csrf] = session.setCookies;
    assert.match(sid!, /^cms\.sid=[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.equal(csrf, `cms.csrf=${session.csrfToken}; Max-Age=1209600; Path=/; SameSite=Strict`);
  });

  it('names the cookies with the __Host- prefix and marks them Secure when baseUrl is https', async () => {
    const secure = await startTestApp({ ...testConfig(), baseUrl: 'https://cms.test' }, {}, { passwordHasher: cheapPasswordHasher() });
    try {
      await secure.request('POST', '/api/v1/@cms/user', { body: { title: 'ada', username: 'ada', password: 'ada-password-1', role: 'editor' } });
      const session = await signIn(secure);
      const [sid, csrf] = session.setCookies;
      assert.match(sid!, /^__Host-cms\.sid=[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
      assert.equal(csrf, `__Host-cms.csrf=${session.csrfToken}; Max-Age=1209600; Path=/; Secure; SameSite=Strict`);
      const who = await asBrowser(secure, session, 'GET', '/api/v1/@cms/login/whoami');
      assert.equal(who.body.username, 'ada');
      const out = await asBrowser(secure, session, 'POST', '/api/v1/@cms/login/logout', { headers: { 'x-csrf-token': session.csrfToken } });
      assert.equal(out.status, 200, out.text);
      assert.deepEqual(setCookiesOf(out), [
        '__Host-cms.sid=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
        '__Host-cms.csrf=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; SameSite=Strict',
      ]);
    } finally {
      await secure.close();
    }
  });

  it('still reads a plain cms.sid cookie over https, and expires it with the __Host- ones when it has ended', async () => {
    const secure = await startTestApp({ ...testConfig(), baseUrl: 'https://cms.test' }, {}, { passwordHasher: cheapPasswordHasher() });
    try {
      await secure.request('POST', '/api/v1/@cms/user', { body: { title: 'ada', username: 'ada', password: 'ada-password-1', role: 'editor' } });
      const session = await signIn(secure);
      // As a browser still holding the cookie from before the server was reached over https.
      const plain = { ...session, cookie: session.cookie.replaceAll('__Host-', '') };
      const who = await asBrowser(secure, plain, 'GET', '/api/v1/@cms/login/whoami');
      assert.equal(who.status, 200, who.text);
      assert.equal(who.body.username, 'ada');
      await asBrowser(secure, session, 'POST', '/api/v1/@cms/login/logout', { headers: { 'x-csrf-token': session.csrfToken } });
      const ended = await asBrowser(secure, plain, 'GET', '/api/v1/@cms/login/whoami');
      assert.equal(ended.status, 404);
      assert.deepEqual(setCookiesOf(ended).map((line) => line.split('=')[0]), ['__Host-cms.sid', '__Host-cms.csrf', 'cms.sid', 'cms.csrf']);
    } finally {
      await secure.close();
    }
  });

  it('still answers a bearer token without session, and refuses a session flag that is not a boolean', async () => {
    const token = await t.request('POST', loginUrl, { key: null, body: { username: 'ada', password: 'ada-password-1' } });
    assert.equal(token.status, 200);
    assert.equal(typeof token.body.token, 'string');
    assert.deepEqual(setCookiesOf(token), []);
    const bad = await t.request('POST', loginUrl, { key: null, body: { username: 'ada', password: 'ada-password-1', session: 'yes' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.name, 'invalid');
  });

  it('acts as the user on a GET with the cookie, and whoami hands out the CSRF token', async () => {
    const session = await signIn(t);
    const who = await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami');
    assert.equal(who.status, 200);
    assert.equal(who.body.username, 'ada');
    assert.equal('role' in who.body, false, 'the role only when login.whoamiFields names it');
    assert.equal(who.body.csrfToken, session.csrfToken);
    const notes = await asBrowser(t, session, 'GET', '/api/v1/note');
    assert.equal(notes.status, 200, 'notes have no public API: only a signed-in user reads them');
    assert.equal(notes.headers['cache-control'], 'no-store');
  });

  it('refuses a cookie write without the CSRF token, or with a wrong one, and stores nothing', async () => {
    const session = await signIn(t);
    for (const headers of [{}, { 'x-csrf-token': 'wrong' } as Record<string, string>, { 'x-csrf-token': session.csrfToken.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }]) {
      const res = await asBrowser(t, session, 'POST', '/api/v1/note', { body: { title: 'Forged' }, headers });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.name, 'forbidden');
      assert.match(res.body.message, /CSRF/);
    }
    assert.ok(!(await noteTitles(t)).includes('Forged'));
  });

  it('refuses PATCH and DELETE by cookie without the CSRF token, changing nothing, and takes them with it', async () => {
    const session = await signIn(t);
    const note = await t.request('POST', '/api/v1/note', { body: { title: 'Kept', text: 'original' } });
    const url = `/api/v1/note/${note.body._id}`;
    assert.equal((await asBrowser(t, session, 'PATCH', url, { body: { text: 'forged' } })).status, 403);
    assert.equal((await asBrowser(t, session, 'DELETE', url)).status, 403);
    assert.equal((await t.request('GET', url)).body.text, 'original');
    const patched = await asBrowser(t, session, 'PATCH', url, { body: { text: 'edited' }, headers: { 'x-csrf-token': session.csrfToken } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await t.request('GET', url)).body.text, 'edited');
  });

  it('accepts a cookie write with the CSRF token, from its own origin or with no Origin at all', async () => {
    const session = await signIn(t);
    const titles: string[] = [];
    for (const [title, headers] of [
      ['Same origin', { 'x-csrf-token': session.csrfToken, origin: ownOrigin }],
      ['No origin', { 'x-csrf-token': session.csrfToken }],
      ['Own referer', { 'x-csrf-token': session.csrfToken, referer: `${ownOrigin}/admin/notes` }],
    ] as const) {
      const res = await asBrowser(t, session, 'POST', '/api/v1/note', { body: { title }, headers });
      assert.equal(res.status, 200, res.text);
      titles.push(title);
    }
    const stored = await noteTitles(t);
    for (const title of titles) assert.ok(stored.includes(title), title);
  });

  it('refuses a cookie write from a foreign Origin or Referer even with the token, and stores nothing', async () => {
    const session = await signIn(t);
    for (const headers of [{ origin: 'https://evil.example' } as Record<string, string>, { origin: 'null' }, { origin: 'http://cms.test.evil.example' }, { referer: 'https://evil.example/page' }]) {
      const res = await asBrowser(t, session, 'POST', '/api/v1/note', { body: { title: 'Cross site' }, headers: { 'x-csrf-token': session.csrfToken, ...headers } });
      assert.equal(res.status, 403, res.text);
      assert.match(res.body.message, /CSRF/);
    }
    assert.ok(!(await noteTitles(t)).includes('Cross site'));
  });

  it('compares with the Host of the request when baseUrl is relative', async () => {
    const relative = await startTestApp({ ...testConfig(), baseUrl: '' }, {}, { passwordHasher: cheapPasswordHasher() });
    try {
      await relative.request('POST', '/api/v1/@cms/user', { body: { title: 'ada', username: 'ada', password: 'ada-password-1', role: 'editor' } });
      const session = await signIn(relative);
      const write = (origin: string) =>
        asBrowser(relative, session, 'POST', '/api/v1/note', { body: { title: origin }, headers: { 'x-csrf-token': session.csrfToken, origin, host: 'admin.example:8080' } });
      assert.equal((await write('http://admin.example:8080')).status, 200);
      assert.equal((await write('http://admin.example')).status, 403);
    } finally {
      await relative.close();
    }
  });

  it('lets API keys and bearer tokens write from any origin without a CSRF token, ignoring the cookie', async () => {
    const session = await signIn(t);
    const foreign = { origin: 'https://elsewhere.example', cookie: session.cookie };
    const byKey = await t.request('POST', '/api/v1/note', { body: { title: 'By key' }, headers: foreign });
    assert.equal(byKey.status, 200, byKey.text);
    const bob = await t.request('POST', loginUrl, { key: null, body: { username: 'bob', password: 'bob-password-1' } });
    const byToken = await t.request('POST', '/api/v1/@cms/login/whoami', { key: null, headers: { ...foreign, authorization: `Bearer ${bob.body.token}` } });
    assert.equal(byToken.status, 200, byToken.text);
    assert.equal(byToken.body.username, 'bob', 'the bearer token wins over the cookie');
    assert.equal(byToken.body.csrfToken, undefined);
  });

  it('refuses a session login from a foreign origin, but not a bearer token login', async () => {
    const res = await t.request('POST', loginUrl, {
      key: null,
      headers: { origin: 'https://evil.example' },
      body: { username: 'ada', password: 'ada-password-1', session: true },
    });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /CSRF/);
    assert.deepEqual(setCookiesOf(res), []);
    const token = await t.request('POST', loginUrl, { key: null, headers: { origin: 'https://front.example' }, body: { username: 'ada', password: 'ada-password-1' } });
    assert.equal(token.status, 200);
    const own = await signIn(t, 'ada', { origin: ownOrigin });
    assert.ok(own.csrfToken);
  });

  it('ends the session on the server at logout: the old cookie no longer authenticates', async () => {
    const session = await signIn(t);
    const refused = await asBrowser(t, session, 'POST', '/api/v1/@cms/login/logout');
    assert.equal(refused.status, 403, 'logging out is a write: it needs the CSRF token too');
    const out = await asBrowser(t, session, 'POST', '/api/v1/@cms/login/logout', { headers: { 'x-csrf-token': session.csrfToken } });
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(setCookiesOf(out), [
      'cms.sid=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict',
      'cms.csrf=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Strict',
    ]);
    const who = await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami');
    assert.equal(who.status, 404, 'a stale cookie leaves the request anonymous');
    assert.equal(setCookiesOf(who).length, 2, 'and expires the cookies');
    const anonymousRead = await t.request('GET', '/api/v1/note', { key: null });
    assert.equal((await asBrowser(t, session, 'GET', '/api/v1/note')).status, anonymousRead.status);
    const write = await asBrowser(t, session, 'POST', '/api/v1/note', { body: { title: 'After logout' }, headers: { 'x-csrf-token': session.csrfToken } });
    assert.equal(write.status, 403);
    assert.ok(!(await noteTitles(t)).includes('After logout'));
  });

  it('keeps other sessions of the same user signed in after one logs out', async () => {
    const first = await signIn(t, 'bob');
    const second = await signIn(t, 'bob');
    await asBrowser(t, first, 'POST', '/api/v1/@cms/login/logout', { headers: { 'x-csrf-token': first.csrfToken } });
    assert.equal((await asBrowser(t, second, 'GET', '/api/v1/@cms/login/whoami')).status, 200);
  });

  it('ends every session and bearer token of a user disabled or archived: enabling or restoring the user revives none', async () => {
    const created = await t.request('POST', '/api/v1/@cms/user', {
      body: { title: 'cyd', username: 'cyd', password: 'cyd-password-1', role: 'editor', email: 'cyd@example.com' },
    });
    assert.equal(created.status, 200, created.text);
    const userUrl = `/api/v1/@cms/user/${created.body._id}`;
    for (const [off, on] of [[{ disabled: true }, { disabled: false }], [{ archived: true }, { archived: false }]]) {
      const session = await signIn(t, 'cyd');
      const login = await t.request('POST', loginUrl, { key: null, body: { username: 'cyd', password: 'cyd-password-1' } });
      const bearer = { key: null, headers: { authorization: `Bearer ${login.body.token}` } } as const;
      assert.equal((await t.request('GET', '/api/v1/@cms/login/whoami', bearer)).status, 200);
      assert.equal((await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami')).status, 200);
      assert.equal((await t.request('PATCH', userUrl, { body: off })).status, 200, JSON.stringify(off));
      assert.equal((await t.request('PATCH', userUrl, { body: on })).status, 200, JSON.stringify(on));
      const refused = await t.request('GET', '/api/v1/@cms/login/whoami', bearer);
      assert.equal(refused.status, 401, `${JSON.stringify(off)}: the token ended with it`);
      assert.equal(refused.body.name, 'unauthorized');
      assert.equal((await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami')).status, 404, 'the session ended too');
      const write = await t.request('POST', '/api/v1/note', { ...bearer, body: { title: 'By an ended token' } });
      assert.equal(write.status, 401);
      assert.ok(!(await noteTitles(t)).includes('By an ended token'));
    }
    assert.equal((await signIn(t, 'cyd')).csrfToken.length, 43, 'signing in again works');
  });

  it('does not take a session id as a bearer token', async () => {
    const session = await signIn(t);
    const sessionId = session.cookie.split('; ')[0]!.slice('cms.sid='.length);
    const res = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: { authorization: `Bearer ${sessionId}` } });
    assert.equal(res.status, 401);
  });
});

describe('sliding session renewal', () => {
  const day = 24 * 3600 * 1000;
  let t: TestApp;
  let tokenWrites = 0;
  // Counts the writes to the token table: a renewal is one, whatever the requests.
  const countTokenWrites = (adapter: StorageAdapter): StorageAdapter => ({
    ...adapter,
    transaction: withOptionalOptions((options, work) =>
      adapter.transaction(options, (tx) => work({ ...tx, tokens: { ...tx.tokens, put: (token) => ((tokenWrites += 1), tx.tokens.put(token)) } })),
    ),
  });
  before(async () => {
    t = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher(), wrapStorage: countTokenWrites });
    await t.request('POST', '/api/v1/@cms/user', { body: { title: 'ada', username: 'ada', password: 'ada-password-1', role: 'editor', email: 'ada@example.com' } });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** The server's clock (Date only: timers keep running) at `time`. */
  function clockAt(time: number): void {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: time });
  }

  async function whoami(session: Session): Promise<TestResponse> {
    const res = await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami');
    assert.equal(res.status, 200, res.text);
    return res;
  }

  it('extends a session used after half its life to 14 days from then, with one write, and sets its cookies again', async () => {
    const start = Date.now();
    const session = await signIn(t);
    tokenWrites = 0;
    clockAt(start + 6 * day);
    assert.deepEqual(setCookiesOf(await whoami(session)), [], 'before half its life: nothing to renew');
    assert.equal(tokenWrites, 0);
    clockAt(start + 8 * day);
    const renewed = await whoami(session);
    assert.deepEqual(setCookiesOf(renewed), session.setCookies, 'the same session and token, for a whole life again');
    assert.equal(tokenWrites, 1);
    for (let i = 0; i < 3; i++) assert.deepEqual(setCookiesOf(await whoami(session)), []);
    assert.equal(tokenWrites, 1, 'renewed once, not per request');
    clockAt(start + 14.5 * day);
    const later = await whoami(session);
    assert.equal(later.body.username, 'ada', 'alive past the 14 days it first had');
    assert.equal(tokenWrites, 1);
  });

  it('ends a session nobody used for 14 days', async () => {
    const start = Date.now();
    const session = await signIn(t);
    clockAt(start + 14 * day + 60_000);
    const res = await asBrowser(t, session, 'GET', '/api/v1/@cms/login/whoami');
    assert.equal(res.status, 404);
  });

  it('renews nothing on a request it refuses', async () => {
    const start = Date.now();
    const session = await signIn(t);
    tokenWrites = 0;
    clockAt(start + 8 * day);
    const forged = await asBrowser(t, session, 'POST', '/api/v1/note', { body: { title: 'No token' } });
    assert.equal(forged.status, 403);
    assert.deepEqual(setCookiesOf(forged), []);
    assert.equal(tokenWrites, 0);
  });
});
