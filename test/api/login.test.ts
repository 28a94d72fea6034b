import { describe, it, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import type { PasswordVerifier } from '../../src/auth/token-service.js';
import { ScryptPasswordHasher, currentParams, hashPassword } from '../../src/auth/passwords.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, uploaded } from '../helpers/media.js';

const loginUrl = '/api/v1/@cms/login/login';
// Cheap scrypt for the tests of the throttle: each takes about a millisecond instead of 0.4 s,
// so that failures land well within a short lockout period.
const cheap = { concurrency: 2, queueLimit: 100, params: { N: 1024, r: 8, p: 1 } };
const cheapHash = /^scrypt\$1024\$8\$1\$/;

/** The real hasher, with a record of what it was asked and of any hash made inside a transaction. */
class RecordingHasher implements PasswordVerifier {
  readonly verified: (string | null)[] = [];
  hashed = 0;
  readonly hashedInTransaction: string[] = [];
  /** Called as each verification is asked for, before it waits for `hold`'s release. */
  onVerify: (() => void) | null = null;
  #held: Promise<void> | null = null;
  readonly #real: ScryptPasswordHasher;
  readonly #storage: () => StorageAdapter;

  constructor(storage: () => StorageAdapter, options: ConstructorParameters<typeof ScryptPasswordHasher>[0]) {
    this.#real = new ScryptPasswordHasher(options);
    this.#storage = storage;
  }

  async verify(plain: string, encoded: string | null) {
    this.verified.push(encoded);
    this.onVerify?.();
    if (this.#held) await this.#held;
    return this.#real.verify(plain, encoded);
  }

  /** Holds every verification until the function returned is called: no login is answered meanwhile. */
  hold(): () => void {
    let release!: () => void;
    this.#held = new Promise((resolve) => (release = resolve));
    return () => {
      this.#held = null;
      release();
    };
  }

  async hash(plain: string) {
    this.hashed++;
    // The adapter refuses a transaction started from inside another's work: that tells whether
    // this hash runs inside the write's transaction.
    await this.#storage()
      .transaction(async () => undefined)
      .catch((error: Error) => this.hashedInTransaction.push(error.message));
    return this.#real.hash(plain);
  }
}

async function startRecorded(env: Record<string, string> = {}, options = cheap) {
  let storage!: StorageAdapter;
  const hasher = new RecordingHasher(() => storage, options);
  const t = await startTestApp(testConfig(), env, {
    passwordHasher: hasher,
    wrapStorage: (adapter) => (storage = adapter),
  });
  return { t, hasher, storage: () => storage };
}

async function login(t: TestApp, username: string, password: string, address = '127.0.0.1', forwardedFor?: string) {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const response = await t.app.inject({ method: 'POST', url: loginUrl, payload: { username, password }, remoteAddress: address, headers });
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}

async function createUser(t: TestApp, username: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', '/api/v1/@cms/user', {
    body: { title: username, username, password: `${username}-password-1`, role: 'editor', email: `${username}@example.com`, ...extra },
  });
  assert.equal(res.status, 200, res.text);
  return res.body._id;
}

function assertLocked(res: { status: number; headers: Record<string, unknown>; body: any }, maxSeconds = 60): void {
  assert.equal(res.status, 429);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds, `Retry-After ${res.headers['retry-after']}`);
  assert.equal(res.body.name, 'toomany');
  assert.match(res.body.message, /^Too many attempts/);
  assert.deepEqual(res.body.data, { retryAfter });
}

describe('login throttle (default limits)', () => {
  let t: TestApp;
  let hasher: RecordingHasher;
  let storage: () => StorageAdapter;
  before(async () => {
    ({ t, hasher, storage } = await startRecorded());
    for (const name of ['ada', 'bob', 'carol', 'olga', 'dan']) await createUser(t, name);
    await createUser(t, 'dis', { disabled: true });
  });
  after(() => t.close());

  it('refuses a username for a minute after 3 failures with 429 and Retry-After, without checking the password', async () => {
    for (let i = 0; i < 3; i++) {
      const failed = await login(t, 'ada', 'wrong-password');
      assert.equal(failed.status, 400);
      assert.equal(failed.body.message, 'Your credentials are incorrect, or there is no such user');
    }
    const checked = hasher.verified.length;
    assertLocked(await login(t, 'ada', 'ada-password-1'));
    assertLocked(await login(t, 'ada@example.com', 'ada-password-1'), 60);
    assert.equal(hasher.verified.length, checked, 'no password is verified while the name is locked');
    assert.equal((await login(t, 'bob', 'bob-password-1')).status, 200, 'other users from the same address may log in');
  });

  it('checks 3 of 24 attempts sent at once for one username, the right password among them; the others get 429', async () => {
    const passwords = [...Array.from({ length: 23 }, (_, i) => `wrong-password-${i}`), 'dan-password-1'];
    const verifiedBefore = hasher.verified.length;
    // Verifications are held until every attempt is either answered or waiting for one: all of
    // them reach the throttle before any password is checked, as attackers' parallel requests do.
    let arrived = 0;
    let allArrived!: () => void;
    const everyArrived = new Promise<void>((resolve) => (allArrived = resolve));
    const arrive = () => void (++arrived === passwords.length && allArrived());
    hasher.onVerify = arrive;
    const release = hasher.hold();
    const pending = passwords.map((password) => login(t, 'dan', password, '10.30.0.1').then((res) => (arrive(), res)));
    await everyArrived;
    release();
    hasher.onVerify = null;
    const answers = await Promise.all(pending);
    const checked = answers.filter((res) => res.status !== 429);
    assert.equal(checked.length, 3, answers.map((res) => res.status).join(' '));
    assert.equal(hasher.verified.length - verifiedBefore, 3, 'three passwords verified');
    for (const res of answers) {
      if (res.status !== 429) continue;
      assertLocked(res);
      assert.equal(res.body.message, 'Too many attempts. You may try again in a minute.');
    }
    const tokens = answers.filter((res) => 'token' in res.body);
    assert.ok(tokens.length <= 1 && tokens.every((res) => res === answers.at(-1) && res.status === 200), 'only the right password, and only when checked, gets a token');
  });

  it('counts unknown usernames too', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await login(t, 'ghost', 'whatever-password')).status, 400);
    assertLocked(await login(t, 'ghost', 'whatever-password'));
  });

  it("clears a username's failures when it logs in", async () => {
    for (let i = 0; i < 2; i++) assert.equal((await login(t, 'carol', 'wrong-password')).status, 400);
    assert.equal((await login(t, 'carol', 'carol-password-1')).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await login(t, 'carol', 'wrong-password')).status, 400);
    assert.equal((await login(t, 'carol', 'carol-password-1')).status, 200);
  });

  it('spends one full verification on unknown and disabled users, as on a wrong password', async () => {
    const cases: [string, string, string | null | RegExp][] = [
      ['bob', 'wrong-password', cheapHash],
      ['nobody-at-all', 'wrong-password', null],
      ['dis', 'dis-password-1', null],
    ];
    for (const [username, password, encoded] of cases) {
      const before = hasher.verified.length;
      assert.equal((await login(t, username, password, `10.9.0.${before}`)).status, 400);
      assert.equal(hasher.verified.length, before + 1, `one verification for ${username}`);
      const used = hasher.verified.at(-1)!;
      if (encoded instanceof RegExp) assert.match(used ?? '', encoded);
      else assert.equal(used, encoded, 'verified against the dummy hash of the current parameters');
    }
  });

  it("stores a hash of the hasher's parameters at the next login when the stored one is older", async () => {
    const adapter = storage();
    const stored = (await adapter.logins.findByName('olga'))!;
    const old = await hashPassword('olga-password-1', { N: 512, r: 8, p: 1 });
    await adapter.transaction((tx) => tx.logins.put({ ...stored, passwordHash: old }));
    const hashedBefore = hasher.hashed;
    assert.equal((await login(t, 'olga', 'olga-password-1')).status, 200);
    const upgraded = (await adapter.logins.findByName('olga'))!.passwordHash;
    assert.match(upgraded, cheapHash);
    assert.equal(hasher.hashed, hashedBefore + 1);
    assert.equal((await login(t, 'olga', 'olga-password-1')).status, 200);
    assert.equal((await adapter.logins.findByName('olga'))!.passwordHash, upgraded, 'a current hash is left alone');
    assert.equal(hasher.hashed, hashedBefore + 1);
  });
});

describe('passwords: minimum length, hashed outside write transactions', () => {
  let t: TestApp;
  let hasher: RecordingHasher;
  let userId: string;
  const userCount = async () => (await t.request('GET', '/api/v1/@cms/user?count=1')).body.count;
  before(async () => {
    ({ t, hasher } = await startRecorded());
    userId = await createUser(t, 'pat');
  });
  after(() => t.close());

  function assertTooShort(res: { status: number; body: any }, min = 10): void {
    assert.equal(res.status, 400);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(res.body.data.errors, [
      { name: 'invalid', code: 400, message: `must be at least ${min} characters`, path: 'password', data: { min } },
    ]);
  }

  it('refuses a password shorter than 10 characters on insert, PUT and PATCH, and changes nothing', async () => {
    const count = await userCount();
    assertTooShort(await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Short', username: 'short', password: '123456789' } }));
    assert.equal(await userCount(), count);
    const put = await t.request('PUT', `/api/v1/@cms/user/${userId}`, { body: { title: 'Pat', username: 'pat', password: 'nine-char' } });
    assertTooShort(put);
    assertTooShort(await t.request('PATCH', `/api/v1/@cms/user/${userId}`, { body: { password: 'short' } }));
    assertTooShort(await t.request('PATCH', `/api/v1/@cms/user/${userId}`, { body: { $set: { password: 'short' } } }));
    assert.equal((await login(t, 'pat', 'pat-password-1')).status, 200, 'the stored password is unchanged');
    assert.equal((await t.request('PATCH', `/api/v1/@cms/user/${userId}`, { body: { password: '0123456789' } })).status, 200);
    assert.equal((await login(t, 'pat', '0123456789')).status, 200);
  });

  it('hashes every password before the write transaction opens, once per write', async () => {
    const before = hasher.hashed;
    await createUser(t, 'quinn');
    const replaced = await t.request('PUT', `/api/v1/@cms/user/${userId}`, {
      body: { title: 'Pat', username: 'pat', password: 'replaced-password' },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(hasher.hashed, before + 2);
    assert.deepEqual(hasher.hashedInTransaction, []);
    assert.equal((await login(t, 'pat', 'replaced-password')).status, 200);
  });

  it('takes the minimum from CMS_LIMIT_PASSWORD_MIN_LENGTH', async () => {
    const other = await startTestApp(testConfig(), { CMS_LIMIT_PASSWORD_MIN_LENGTH: '12' });
    try {
      const res = await other.request('POST', '/api/v1/@cms/user', { body: { title: 'E', username: 'eleven', password: '12345678901' } });
      assertTooShort(res, 12);
      const ok = await other.request('POST', '/api/v1/@cms/user', { body: { title: 'T', username: 'twelve', password: '123456789012' } });
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await other.close();
    }
  });
});

describe('login throttle per client address, lock expiry, shared store', () => {
  let t: TestApp;
  const env = { CMS_LIMIT_LOGIN_FAILURES_PER_ADDRESS: '4', CMS_LIMIT_LOGIN_LOCKOUT_SECONDS: '2' };
  before(async () => {
    ({ t } = await startRecorded(env));
    for (const name of ['erin', 'finn', 'gail']) await createUser(t, name);
  });
  after(() => t.close());

  it('refuses an address after its own limit of failures, whatever the usernames; other addresses go on', async () => {
    for (const name of ['x1', 'x2', 'x3', 'x4']) assert.equal((await login(t, name, 'wrong-password', '10.0.0.1')).status, 400);
    assertLocked(await login(t, 'erin', 'erin-password-1', '10.0.0.1'), 2);
    assert.equal((await login(t, 'erin', 'erin-password-1', '10.0.0.2')).status, 200);
  });

  it('lets a locked username in again once the lockout period is over', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await login(t, 'finn', 'wrong-password', '10.0.1.1')).status, 400);
    assertLocked(await login(t, 'finn', 'finn-password-1', '10.0.1.1'), 2);
    // The throttle reads the time from Date: its clock moves past the 2 s lockout, no wait.
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 2_100 });
    try {
      assert.equal((await login(t, 'finn', 'finn-password-1', '10.0.1.1')).status, 200);
    } finally {
      mock.timers.reset();
    }
  });

  it('keeps the counts in the store: a second server on the same database sees the lock', async () => {
    const second = await startTestApp(testConfig(), { ...env, CMS_DATABASE_URL: t.databaseUrl }, {
      passwordHasher: new ScryptPasswordHasher(cheap),
    });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await login(t, 'gail', 'wrong-password', '10.0.2.1')).status, 400);
      assertLocked(await login(second, 'gail', 'gail-password-1', '10.0.2.2'), 2);
    } finally {
      await second.close();
    }
  });
});

describe('the client address behind proxies (CMS_TRUST_PROXY)', () => {
  const env = { CMS_LIMIT_LOGIN_FAILURES_PER_ADDRESS: '2' };

  it('ignores X-Forwarded-For by default: a client cannot name new addresses to escape its limit', async () => {
    const { t } = await startRecorded(env);
    try {
      for (const [i, spoofed] of ['1.1.1.1', '2.2.2.2'].entries()) {
        assert.equal((await login(t, `nobody${i}`, 'wrong-password', '10.1.0.1', spoofed)).status, 400);
      }
      assertLocked(await login(t, 'nobody3', 'wrong-password', '10.1.0.1', '3.3.3.3'));
    } finally {
      await t.close();
    }
  });

  it('counts each forwarded client apart behind a trusted proxy', async () => {
    const { t } = await startRecorded({ ...env, CMS_TRUST_PROXY: '10.1.0.0/16' });
    try {
      for (const i of [1, 2]) assert.equal((await login(t, `nobody${i}`, 'wrong-password', '10.1.0.1', '1.1.1.1')).status, 400);
      assertLocked(await login(t, 'nobody3', 'wrong-password', '10.1.0.1', '1.1.1.1'));
      assert.equal((await login(t, 'nobody4', 'wrong-password', '10.1.0.1', '2.2.2.2')).status, 400, 'another client behind the proxy');
      // An untrusted peer's header is ignored: it is counted as itself.
      for (const i of [5, 6]) assert.equal((await login(t, `nobody${i}`, 'wrong-password', '192.0.2.9', `9.9.9.${i}`)).status, 400);
      assertLocked(await login(t, 'nobody7', 'wrong-password', '192.0.2.9', '9.9.9.7'));
    } finally {
      await t.close();
    }
  });
});

describe('password hashing on a bounded pool', () => {
  // Logins sent at once for one user are counted before they are checked: the throttle lets
  // them all through here, so that what is seen is the hasher's bound.
  const unthrottled = { CMS_LIMIT_LOGIN_FAILURES_PER_USERNAME: '20' };

  it('refuses logins beyond the pool and its queue with 503 and Retry-After', async () => {
    const t = await startTestApp(testConfig(), { ...unthrottled, CMS_LIMIT_PASSWORD_HASH_CONCURRENCY: '1', CMS_LIMIT_PASSWORD_HASH_QUEUE: '2' });
    try {
      await createUser(t, 'hank');
      const results = await Promise.all(Array.from({ length: 6 }, () => login(t, 'hank', 'hank-password-1')));
      const ok = results.filter((r) => r.status === 200);
      const busy = results.filter((r) => r.status === 503);
      assert.equal(ok.length + busy.length, 6, JSON.stringify(results.map((r) => r.status)));
      assert.ok(ok.length >= 1 && ok.length <= 3, `one running and two queued at most: ${ok.length} succeeded`);
      for (const r of busy) {
        assert.equal(r.headers['retry-after'], '1');
        assert.deepEqual(r.body, { name: 'unavailable', message: 'The server is busy; try again shortly.', data: { retryAfter: 1 } });
      }
      assert.equal((await login(t, 'hank', 'hank-password-1')).status, 200, 'refused logins count as no failure');
    } finally {
      await t.close();
    }
  });

  it('serves an uploaded file while a flood of logins waits for the hasher', async () => {
    // The real parameters: the point is what 0.4 s hashes do to the threads that read files.
    const { t, hasher } = await startRecorded(unthrottled, { concurrency: 2, queueLimit: 100, params: currentParams });
    try {
      await createUser(t, 'ivy');
      const file = await uploaded(t, 'notes.txt', 'file bytes\n');
      const url = new URL(file._url).pathname;
      const flood = 8;
      let done = 0;
      const logins = Array.from({ length: flood }, () => login(t, 'ivy', 'ivy-password-1').then((r) => (done++, r)));
      // Every login has handed its verification to the hasher: 2 computing, 6 waiting.
      const deadline = Date.now() + 30_000;
      while (hasher.verified.length < flood) {
        assert.ok(Date.now() < deadline, `only ${hasher.verified.length} logins reached the hasher`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const served = await fetchRaw(t, url);
      const doneWhenServed = done;
      assert.equal(served.status, 200);
      assert.equal(served.bytes.toString(), 'file bytes\n');
      assert.ok(doneWhenServed <= 2, `the file waited for ${doneWhenServed} of ${flood} logins`);
      assert.ok((await Promise.all(logins)).every((r) => r.status === 200));
    } finally {
      await t.close();
    }
  });
});
