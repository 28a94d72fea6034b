import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { buildApp } from '../../src/app.js';

const setupUrl = '/api/v1/@cms/setup';

/** A test app that listens (the code is logged then), and the log lines it wrote. */
async function startListening(): Promise<{ t: TestApp; lines: string[] }> {
  const lines: string[] = [];
  const t = await startTestApp(testConfig(), { CMS_LOG_LEVEL: 'warn' }, { passwordHasher: cheapPasswordHasher(), logStream: { write: (line) => void lines.push(line) } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, lines };
}

function loggedCode(lines: string[]): string {
  const entries = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => /setup code/.test(entry.msg));
  assert.equal(entries.length, 1, lines.join(''));
  assert.equal(entries[0]!.level, 40, 'logged at warn');
  const match = /setup code ([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})$/.exec(entries[0]!.msg);
  assert.ok(match, entries[0]!.msg);
  return match[1]!;
}

function post(t: TestApp, body: Record<string, unknown>, options: { address?: string; headers?: Record<string, string> } = {}) {
  return t.app
    .inject({ method: 'POST', url: setupUrl, payload: body, headers: options.headers, remoteAddress: options.address ?? '127.0.0.1' })
    .then((res) => ({ status: res.statusCode, headers: res.headers, body: res.json() }));
}

describe('first-run setup code', () => {
  let t: TestApp;
  let code: string;
  before(async () => {
    const started = await startListening();
    t = started.t;
    code = loggedCode(started.lines);
  });
  after(() => t.close());

  it('says setup is needed on an empty store, to anyone', async () => {
    const res = await t.request('GET', setupUrl, { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { needed: true });
  });

  it('requires the code, the username and the password', async () => {
    const res = await post(t, { username: 'root', password: 'root-password-1' });
    assert.equal(res.status, 400);
    assert.equal(res.body.name, 'invalid');
  });

  it('refuses a wrong code with 403 and creates nobody', async () => {
    const res = await post(t, { code: 'AAAA-BBBB-CCCC', username: 'root', password: 'root-password-1' }, { address: '10.0.0.1' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { name: 'forbidden', message: 'The setup code is wrong.', data: {} });
    assert.equal((await t.request('GET', '/api/v1/@cms/user')).body.results.length, 0);
  });

  it('applies the password rules and keeps the code for another try', async () => {
    const res = await post(t, { code, username: 'root', password: 'short' });
    assert.equal(res.status, 400);
    assert.equal(res.body.data.errors[0].path, 'password');
    assert.deepEqual((await t.request('GET', setupUrl, { key: null })).body, { needed: true });
  });

  it('refuses a request from a foreign origin', async () => {
    const res = await post(t, { code, username: 'root', password: 'root-password-1' }, { headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /CSRF/);
  });

  it('creates an admin with the right code (typed in lower case, without dashes), who can then log in', async () => {
    const res = await post(t, { code: code.replace(/-/g, '').toLowerCase(), username: 'root', password: 'root-password-1', title: 'The Root' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.username, 'root');
    assert.equal(res.body.title, 'The Root');
    assert.equal(res.body.role, 'admin');
    const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'root', password: 'root-password-1' } });
    assert.equal(login.status, 200);
    const who = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: { authorization: `Bearer ${login.body.token}` } });
    assert.equal(who.body.username, 'root');
    assert.equal(who.body._id, res.body._id);
    // The audit trail: the setup created the admin (from the client's address), then the admin signed in.
    const trail = await t.request('GET', '/api/v1/@cms/audit', { key: null, headers: { authorization: `Bearer ${login.body.token}` } });
    assert.equal(trail.status, 200, trail.text);
    const oldestFirst = [...trail.body.results].reverse();
    assert.deepEqual(oldestFirst.map((record: any) => [record.action, record.actor.title, record.ids.at(-1)]), [
      ['document.insert', 'First-run setup', res.body._id],
      ['login', null, res.body._id],
    ]);
    assert.equal(oldestFirst[0].detail.role, 'admin');
    assert.equal(typeof oldestFirst[0].address, 'string');
  });

  it('refuses a second attempt with 409 and says setup is no longer needed', async () => {
    const res = await post(t, { code, username: 'other', password: 'other-password-1' });
    assert.equal(res.status, 409);
    assert.equal(res.body.name, 'conflict');
    assert.deepEqual((await t.request('GET', setupUrl, { key: null })).body, { needed: false });
    assert.equal((await t.request('GET', '/api/v1/@cms/user')).body.results.length, 1);
  });
});

describe('setup code throttle and existing users', () => {
  const wrong = { code: 'AAAA-BBBB-CCCC', username: 'root', password: 'root-password-1' };

  function assertLocked(res: { status: number; headers: Record<string, unknown>; body: any }): void {
    assert.equal(res.status, 429);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers['retry-after']}`);
    assert.deepEqual(res.body, { name: 'toomany', message: 'Too many attempts. You may try again in a minute.', data: { retryAfter } });
  }

  it('locks setup after 3 wrong codes for their address only, the right code included; the operator elsewhere goes on', async () => {
    const { t, lines } = await startListening();
    try {
      const code = loggedCode(lines);
      for (let i = 0; i < 3; i++) assert.equal((await post(t, wrong, { address: '10.0.1.1' })).status, 403);
      assertLocked(await post(t, { ...wrong, code }, { address: '10.0.1.1' }));
      assert.deepEqual((await t.request('GET', setupUrl, { key: null })).body, { needed: true });
      const operator = await post(t, { ...wrong, code }, { address: '10.0.2.1' });
      assert.equal(operator.status, 200, JSON.stringify(operator.body));
    } finally {
      await t.close();
    }
  });

  it('checks 3 of the codes one address sends at once; the others get 429', async () => {
    const { t, lines } = await startListening();
    try {
      const code = loggedCode(lines);
      const answers = await Promise.all(Array.from({ length: 16 }, () => post(t, wrong, { address: '10.0.3.1' })));
      assert.equal(answers.filter((res) => res.status === 403).length, 3, answers.map((res) => res.status).join(' '));
      for (const res of answers) if (res.status !== 403) assertLocked(res);
      assert.equal((await post(t, { ...wrong, code }, { address: '10.0.3.2' })).status, 200);
    } finally {
      await t.close();
    }
  });

  it('logs no code and offers no setup when a user exists at start', async () => {
    const lines: string[] = [];
    const first = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher() });
    const created = await first.request('POST', '/api/v1/@cms/user', { body: { title: 'ada', username: 'ada', password: 'ada-password-1', role: 'admin' } });
    assert.equal(created.status, 200);
    // A second start on the same store finds the user.
    const { loadAppConfig } = await import('../../src/load-app-config.js');
    const { buildApp } = await import('../../src/app.js');
    const config = await loadAppConfig({ config: testConfig(), env: { CMS_DATA_DIR: first.dataDir, CMS_LOG_LEVEL: 'warn', CMS_DATABASE_URL: first.databaseUrl }, cwd: first.dataDir });
    const again = await buildApp(config, { logStream: { write: (line) => void lines.push(line) } });
    try {
      await again.listen({ port: 0, host: '127.0.0.1' });
      assert.ok(!lines.some((line) => /setup code/.test(line)), lines.join(''));
      const needed = await again.inject({ method: 'GET', url: setupUrl });
      assert.deepEqual(needed.json(), { needed: false });
      const refused = await again.inject({ method: 'POST', url: setupUrl, payload: { code: 'AAAA-BBBB-CCCC', username: 'x', password: 'x-password-12' } });
      assert.equal(refused.statusCode, 409);
    } finally {
      await again.close();
      await first.close();
    }
  });
});

describe('setup codes in several processes of one store', () => {
  it('accepts in each process the code another logged, and creates one first admin when both are sent it at the same moment', async () => {
    const first = await startListening();
    const loaded = await loadAppConfig({
      config: testConfig(),
      env: { CMS_DATA_DIR: first.t.dataDir, CMS_LOG_LEVEL: 'warn', CMS_DATABASE_URL: first.t.databaseUrl },
      cwd: first.t.dataDir,
    });
    // Another server on the same store, as on another machine: it logs a code of its own.
    const otherLines: string[] = [];
    const other = await buildApp(loaded, { passwordHasher: cheapPasswordHasher(), logStream: { write: (line) => void otherLines.push(line) } });
    await other.listen({ port: 0, host: '127.0.0.1' });
    const servers = [first.t.app, other];
    try {
      const codes = [loggedCode(first.lines), loggedCode(otherLines)];
      assert.notEqual(codes[0], codes[1]);
      const send = (app: (typeof servers)[number], body: Record<string, unknown>) =>
        app.inject({ method: 'POST', url: setupUrl, payload: body }).then((res) => ({ status: res.statusCode, text: res.body }));
      // Each server knows the other's code: too short a password is refused, and the code kept.
      for (const [n, app] of servers.entries()) {
        assert.deepEqual((await app.inject({ method: 'GET', url: setupUrl })).json(), { needed: true });
        const short = await send(app, { code: codes[1 - n], username: 'root', password: 'short' });
        assert.equal(short.status, 400, short.text);
      }
      const answers = await Promise.all(
        servers.map((app, n) => send(app, { code: codes[0], username: `root${n}`, password: 'root-password-1' })),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.equal(statuses[0], 200, answers.map((answer) => answer.text).join('\n'));
      // The code is taken from the store by one of them: the other finds it gone, or the admin made.
      assert.ok(statuses[1] === 403 || statuses[1] === 409, answers.map((answer) => answer.text).join('\n'));
      assert.equal((await first.t.request('GET', '/api/v1/@cms/user')).body.results.length, 1, 'one admin');
      for (const app of servers) assert.deepEqual((await app.inject({ method: 'GET', url: setupUrl })).json(), { needed: false });
      const late = await send(other, { code: codes[1], username: 'late', password: 'late-password-1' });
      assert.equal(late.status, 409, 'no code creates an admin once a user exists');
    } finally {
      await other.close();
      await first.t.close();
    }
  });
});
