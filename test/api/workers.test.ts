import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { connect } from 'node:net';
import { existsSync } from 'node:fs';
import { freePort, startServerProcess, type ProcessResponse, type ServerProcess } from '../helpers/server-process.js';
import { describeOnPostgres, newSchemaDatabase, type SchemaDatabase } from '../helpers/postgres.js';

const adminKey = 'workers-test-admin-key-0123';
const admin = { authorization: `ApiKey ${adminKey}` };
const twoWorkers = { CMS_WORKERS: '2', CMS_API_KEYS: `${adminKey}:admin` };

/** Sends requests until both workers have answered one (round robin makes that quick), at most `tries`. */
async function fromBothWorkers(server: ServerProcess, send: (i: number) => Promise<ProcessResponse>, tries = 20): Promise<ProcessResponse[]> {
  const answers: ProcessResponse[] = [];
  for (let i = 0; i < tries && new Set(answers.map((answer) => answer.pid)).size < 2; i++) answers.push(await send(i));
  assert.deepEqual(new Set(answers.map((answer) => answer.pid)), new Set(server.childPids()), 'both workers answered');
  return answers;
}

/** PATCHes a draft's title and reads it back at once, many times, wherever each request lands. */
async function writesAreReadEverywhere(server: ServerProcess): Promise<void> {
  const created = await server.request('POST', '/api/v1/article', { headers: admin, body: { title: 'First title' } });
  assert.equal(created.status, 200, created.text);
  const url = `/api/v1/article/${encodeURIComponent(created.body._id)}`;
  const readers = new Set<number>();
  let crossings = 0;
  for (let i = 0; i < 20; i++) {
    // Turns alternate: a request in between now and then lets each worker both write and read.
    if (i % 3 === 2) await server.request('GET', `/health?turn=${i}`);
    const patched = await server.request('PATCH', url, { headers: admin, body: { title: `Title ${i}` } });
    assert.equal(patched.status, 200, patched.text);
    // The same URL each time: a worker that kept the answer in its response cache must see the write.
    const read = await server.request('GET', url, { headers: admin });
    assert.equal(read.body.title, `Title ${i}`, `read ${i} through ${read.pid} after a write through ${patched.pid}`);
    readers.add(read.pid);
    if (read.pid !== patched.pid) crossings++;
  }
  assert.equal(readers.size, 2, 'both workers read');
  assert.ok(crossings >= 5, `reads through the worker that did not write: ${crossings} of 20`);
}

describe('CMS_WORKERS=2: one port, two processes (SQLite)', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess({ env: twoWorkers });
  });
  after(() => server.stop('SIGKILL'));

  it('forks two workers that share the port, and both answer', async () => {
    const workers = server.childPids();
    assert.equal(workers.length, 2);
    assert.ok(!workers.includes(server.child.pid!));
    await fromBothWorkers(server, (i) => server.request('GET', `/health?probe=${i}`));
    const listening = server.lines().filter((line) => /listening at/.test(line.msg));
    assert.deepEqual(new Set(listening.map((line) => line.pid)), new Set([...workers, server.child.pid]), 'each worker, then the primary once');
  });

  it('says the start lines once, from the primary', async () => {
    await server.waitForLine((line) => line.msg.startsWith('Open http://localhost:'));
    for (const start of ['Configuration: ', 'Piece types (', 'Store: SQLite file ', 'Files: local directory ', 'Links (_url', 'Open http://localhost:']) {
      const lines = server.lines().filter((line) => line.msg.startsWith(start));
      assert.equal(lines.length, 1, start);
      assert.equal(lines[0]!.pid, server.child.pid, start);
      assert.equal(lines[0]!.level, 30, start);
    }
    assert.ok(server.lines().some((line) => line.msg === `Open http://localhost:${server.port}/admin (the API is at http://localhost:${server.port}/api/v1)`));
  });

  it('logs one setup code, from the primary, and every worker accepts it', async () => {
    const notices = server.lines().filter((line) => /setup code/.test(line.msg));
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.pid, server.child.pid);
    assert.equal(notices[0]!.level, 40);
    const code = /setup code (\S+)$/.exec(notices[0]!.msg)![1]!;
    const needed = await fromBothWorkers(server, () => server.request('GET', '/api/v1/@cms/setup'));
    assert.ok(needed.every((answer) => answer.body.needed === true));
    const wrong = await server.request('POST', '/api/v1/@cms/setup', { body: { code: 'AAAA-BBBB-CCCC', username: 'root', password: 'root-password-1' } });
    assert.equal(wrong.status, 403);
    // The right code with a too short password: each worker knows the code, and keeps it for another try.
    const tooShort = await fromBothWorkers(server, () => server.request('POST', '/api/v1/@cms/setup', { body: { code, username: 'root', password: 'short' } }));
    for (const answer of tooShort) assert.equal(answer.status, 400, answer.text);
    const created = await server.request('POST', '/api/v1/@cms/setup', { body: { code, username: 'root', password: 'root-password-1' } });
    assert.equal(created.status, 200, created.text);
    const done = await fromBothWorkers(server, () => server.request('GET', '/api/v1/@cms/setup'));
    assert.ok(done.every((answer) => answer.body.needed === false));
  });

  it('reads a write made through one worker at once through the other', async () => {
    await writesAreReadEverywhere(server);
  });

  it('takes concurrent writes through both workers: each waits for the write lock the other holds', async () => {
    const before = await server.request('GET', '/api/v1/article?perPage=1', { headers: admin });
    const writes = await Promise.all(
      // A URL of its own each: the log tells which worker took which.
      Array.from({ length: 40 }, (_, i) => server.request('POST', `/api/v1/article?write=${i}`, { headers: admin, body: { title: `Concurrent ${i}` } })),
    );
    for (const write of writes) assert.equal(write.status, 200, write.text);
    assert.equal(new Set(writes.map((write) => write.pid)).size, 2, 'both workers wrote');
    const after = await server.request('GET', '/api/v1/article?perPage=1', { headers: admin });
    assert.equal(after.body.pages, before.body.pages + 40, 'one page of one per article');
  });

  it('honours a session made through one worker on the other, and its sign-out too', async () => {
    const login = await server.request('POST', '/api/v1/@cms/login/login', { body: { username: 'root', password: 'root-password-1', session: true } });
    assert.equal(login.status, 200, login.text);
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
    const whoami = () => server.request('GET', '/api/v1/@cms/login/whoami', { headers: { cookie } });
    for (const answer of await fromBothWorkers(server, whoami)) assert.equal(answer.body.username, 'root', answer.text);
    const logout = await server.request('POST', '/api/v1/@cms/login/logout', { headers: { cookie, 'x-csrf-token': login.body.csrfToken } });
    assert.equal(logout.status, 200, logout.text);
    for (const answer of await fromBothWorkers(server, whoami)) {
      assert.notEqual(answer.status, 200, `signed out, yet ${answer.pid} answers ${answer.text}`);
    }
  });

  it('replaces a worker killed with SIGKILL and keeps answering', async () => {
    const [victim, survivor] = server.childPids();
    process.kill(victim!, 'SIGKILL');
    await server.waitForLine((line) => line.msg.startsWith('A worker died') && line.workerPid === victim);
    for (let i = 0; i < 4; i++) assert.equal((await server.request('GET', `/health?while-one=${i}`)).status, 200);
    const replacement = await server.waitForLine((line) => /Server listening/.test(line.msg) && line.pid !== victim && line.pid !== survivor && line.pid !== server.child.pid);
    assert.deepEqual(new Set(server.childPids()), new Set([survivor, replacement.pid]));
    await fromBothWorkers(server, (i) => server.request('GET', `/health?after=${i}`));
  });
});

describe('CMS_WORKERS=2: stopping', () => {
  it('lets a request in flight finish on SIGTERM, stops every worker and exits 0', async () => {
    const server = await startServerProcess({ env: twoWorkers });
    const workers = server.childPids();
    // A POST whose body is half sent when the signal comes.
    const body = JSON.stringify({ title: 'Sent across the shutdown' });
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(
      `POST /api/v1/article HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ApiKey ${adminKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await server.waitForLine((line) => line.msg === 'incoming request' && line.req?.method === 'POST');
    server.child.kill('SIGTERM');
    await server.waitForLine((line) => /shutting down/.test(line.msg) && line.pid !== server.child.pid);
    // Not `end`: a client that half-closes its side is taken by Node as gone (its request aborted,
    // unanswered) whenever the end is read before the answer is written. `Connection: close` ends it.
    socket.write(body.slice(10));
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    // The processes' own lines say why, should the primary not end as asked.
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
    await server.stop();
    for (const pid of workers) assert.equal(existsSync(`/proc/${pid}`), false, `worker ${pid} is gone`);
  });

  it('gives up with a clear line and exits 1 when the workers cannot start', async () => {
    const port = await freePort();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const server = startServerProcess({ env: twoWorkers, port, ready: (line) => /giving up/.test(line.msg) });
      const started = await server;
      const { code } = await started.exited;
      assert.equal(code, 1);
      const line = started.lines().find((entry) => /giving up/.test(entry.msg))!;
      assert.equal(line.level, 50);
      assert.equal(line.pid, started.child.pid);
      assert.equal(started.lines().filter((entry) => /starting another/.test(entry.msg)).length, 5, 'five restarts, each after a longer wait');
      await started.stop();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describeOnPostgres('CMS_WORKERS=2 on PostgreSQL', () => {
  let server: ServerProcess;
  let database: SchemaDatabase;
  before(async () => {
    database = await newSchemaDatabase();
    server = await startServerProcess({ env: { ...twoWorkers, CMS_DATABASE_URL: database.url } });
  });
  after(async () => {
    await server.stop();
    await database?.drop();
  });

  it('reads a write made through one worker at once through the other', async () => {
    assert.equal(server.childPids().length, 2);
    await writesAreReadEverywhere(server);
  });
});
