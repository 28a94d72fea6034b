import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { codeDigest } from '../../src/auth/account-security.js';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

const base = '/api/v1/@cms/login';

interface ReceivedMail {
  readonly to: string[];
  readonly raw: string;
}

/** An SMTP sink on a free loopback port: every mail it is sent, kept in order. */
async function startMailSink(): Promise<{ port: number; mails: ReceivedMail[]; next(timeoutMs?: number): Promise<ReceivedMail>; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const waiting: Array<(mail: ReceivedMail) => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
        const waiter = waiting.shift();
        if (waiter) waiter(mail);
        else mails.push(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    next(timeoutMs = 5000) {
      const ready = mails.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no mail came')), timeoutMs);
        waiting.push((mail) => {
          clearTimeout(timer);
          resolve(mail);
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The reset link's token, quoted-printable soft breaks and escapes undone. */
function tokenOf(mail: ReceivedMail): { link: string; token: string } {
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const link = /https?:\/\/\S+\/admin\/reset\?token=([A-Za-z0-9_-]+)/.exec(text);
  assert.ok(link, `no reset link in:\n${text}`);
  return { link: link[0], token: link[1]! };
}

describe('password reset by mail', () => {
  let t: TestApp;
  let storage!: StorageAdapter;
  let sink: Awaited<ReturnType<typeof startMailSink>>;
  let userNumber = 0;

  before(async () => {
    sink = await startMailSink();
    const config = { ...testConfig(), baseUrl: 'http://cms.example.com', mail: { smtp: `smtp://127.0.0.1:${sink.port}`, from: 'CMS <cms@example.com>' } };
    t = await startTestApp(config, { CMS_LIMIT_PASSWORD_RESETS_PER_ADDRESS: '6' }, {
      passwordHasher: cheapPasswordHasher(),
      wrapStorage: (adapter) => (storage = adapter),
    });
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  async function newUser() {
    const username = `reset-user-${++userNumber}`;
    const password = `${username}-password`;
    const res = await t.request('POST', '/api/v1/@cms/user', { body: { title: username, username, password, role: 'editor', email: `${username}@example.com` } });
    assert.equal(res.status, 200, res.text);
    return { username, password, email: `${username}@example.com`, id: res.body._id as string };
  }

  /** From its own address, so that the per-address limit of one test does not reach the others. */
  async function forgot(body: unknown, address: string) {
    const res = await t.app.inject({ method: 'POST', url: `${base}/forgot`, payload: body as object, remoteAddress: address });
    return { status: res.statusCode, body: res.json() };
  }

  const post = (url: string, body: unknown, token?: string) =>
    t.request('POST', `${base}${url}`, { body, key: null, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('mails a link; the token sets a new password once and ends the other sessions; unknown names get the same answer', async () => {
    const user = await newUser();
    const oldToken = (await post('/login', { username: user.username, password: user.password })).body.token as string;

    const unknown = await forgot({ email: 'nobody@example.com' }, '10.0.0.1');
    const known = await forgot({ email: user.email }, '10.0.0.1');
    assert.equal(known.status, 200);
    assert.deepEqual(unknown, known, 'the same answer whether the account exists or not');
    const mail = await sink.next();
    assert.deepEqual(mail.to, [user.email]);
    assert.match(mail.raw, /^From: CMS <cms@example\.com>/m);
    const { link, token } = tokenOf(mail);
    assert.ok(link.startsWith('http://cms.example.com/admin/reset?token='), link);
    assert.equal(sink.mails.length, 0, 'no mail for the unknown address');

    const short = await post('/reset', { token, password: 'short' });
    assert.equal(short.status, 400, 'too short: refused, the link still works');
    const newPassword = 'a-brand-new-password';
    const reset = await post('/reset', { token, password: newPassword });
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(reset.body, { reset: true });

    const again = await post('/reset', { token, password: 'another-new-password' });
    assert.equal(again.status, 400, 'a link works once');
    assert.equal(again.body.name, 'invalid');
    const whoami = await t.request('GET', `${base}/whoami`, { key: null, headers: { authorization: `Bearer ${oldToken}` } });
    assert.equal(whoami.status, 401, 'the old bearer token ended');
    assert.equal((await post('/login', { username: user.username, password: user.password })).status, 400, 'the old password is gone');
    assert.equal((await post('/login', { username: user.username, password: newPassword })).status, 200);

    for (const action of ['login.reset.request', 'login.reset']) {
      const audit = await t.request('GET', `/api/v1/@cms/audit?action=${action}&perPage=100`);
      assert.equal(audit.status, 200, audit.text);
      assert.ok(audit.body.results.some((r: { ids: string[] }) => r.ids.includes(user.id)), action);
    }
  });

  it('by username too; an expired or made-up token is refused with 400', async () => {
    const user = await newUser();
    await forgot({ username: user.username }, '10.0.0.2');
    const { token } = tokenOf(await sink.next());
    assert.equal((await post('/reset', { token: `${token}x`, password: 'a-brand-new-password' })).status, 400);

    const expired = 'an-expired-token-made-by-the-test';
    const past = new Date(Date.now() - 1000).toISOString();
    await storage.accountSecurity.insertCode({ digest: codeDigest('reset', expired), userId: user.id, purpose: 'reset', createdAt: past, expiresAt: past, usedAt: null });
    const refused = await post('/reset', { token: expired, password: 'a-brand-new-password' });
    assert.equal(refused.status, 400);
    assert.equal((await post('/login', { username: user.username, password: user.password })).status, 200, 'password unchanged');
  });

  it('throttled: per account no more mails past the limit (same answer), per address 429', async () => {
    const user = await newUser();
    const answers: Array<{ status: number; body: { message: string } }> = [];
    for (let n = 0; n < 4; n++) answers.push(await forgot({ email: user.email }, '10.0.0.3'));
    assert.ok(answers.every((answer) => answer.status === 200 && answer.body.message === answers[0]!.body.message));
    for (let n = 0; n < 3; n++) await sink.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(sink.mails.length, 0, 'the fourth request sent no mail');

    for (let n = 0; n < 2; n++) assert.equal((await forgot({ email: `other-${n}@example.com` }, '10.0.0.3')).status, 200);
    const limited = await forgot({ email: 'one-more@example.com' }, '10.0.0.3');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.name, 'toomany');
  });

  it('hostile bodies: 400 in the error shape, no mail', async () => {
    const bodies: unknown[] = [{}, { email: 42 }, { email: { $ne: null } }, { username: 'x'.repeat(10_000) }, { email: '' }];
    for (const body of bodies) {
      const res = await forgot(body, '10.0.0.4');
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
    }
    const resets: unknown[] = [{ token: 1, password: 'a-brand-new-password' }, { token: 'x', password: ['a'] }, { token: 'y'.repeat(1000), password: 'a-brand-new-password' }];
    for (const body of resets) assert.equal((await post('/reset', body)).status, 400);
    const proto = await t.request('POST', `${base}/forgot`, { key: null, headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"email":"a@b.c"}}' });
    assert.equal(proto.status, 400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sink.mails.length, 0);
  });
});
