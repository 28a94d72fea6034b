import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFile } from 'node:fs/promises';
import { limitDefinitions } from '../../src/config/limits.js';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { countAttachments, listFiles, makeImage, multipartBody, uploadsDir } from '../helpers/media.js';

/** Small timeouts, so that stalled clients are cut within a test's patience. */
const limits = { headersTimeout: 600, idleTimeout: 800, requestTimeout: 3000, keepAliveTimeout: 500 };
/** Timers, the connection check interval and a loaded machine: how late a cut may come. */
const slack = 1500;

interface Client {
  readonly socket: net.Socket;
  readonly opened: number;
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closed: Promise<number>;
  received(): string;
}

/** A raw loopback connection that writes `head` and then whatever the test trickles in. */
function connect(port: number, head: string): Client {
  const opened = performance.now();
  const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => undefined);
  // A connection the server never closes counts as closed after Infinity ms (and is closed here).
  const closed = new Promise<number>((resolve) => {
    const deadline = setTimeout(() => {
      resolve(Infinity);
      socket.destroy();
    }, 10_000);
    socket.once('close', () => {
      clearTimeout(deadline);
      resolve(performance.now() - opened);
    });
  });
  return { socket, opened, closed, received: () => received };
}

/** GET /health on a fresh connection: its status, or 'closed' when the server hung up without an answer. */
function health(port: number): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 3000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve('closed'));
  });
}

/** Writes `chunk` every `every` ms until the connection closes or `times` chunks are out. */
async function trickle(client: Client, chunk: string | Buffer, every: number, times = Infinity): Promise<void> {
  for (let sent = 0; sent < times && !client.socket.destroyed; sent++) {
    await sleep(every);
    if (!client.socket.destroyed) client.socket.write(chunk);
  }
}

describe('connection timeouts', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({ ...testConfig(), limits });
    port = await t.listen();
  });
  after(() => t.close());

  it('answers /health while held by stalled clients, and closes them all', async () => {
    const upload = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', content: await makeImage('png', 64, 64) }]);
    const uploadHead =
      `POST /api/v1/@cms/attachment/upload HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${keys.admin}\r\n` +
      `Content-Type: ${upload.contentType}\r\nContent-Length: ${upload.payload.length}\r\n\r\n`;
    const post = `POST /api/v1/article HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${keys.admin}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const stalled = Array.from({ length: 15 }, () => [
      connect(port, 'GET /hea'), // a partial request line
      connect(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Partial: a'), // a partial header
      connect(port, post), // headers, no body
      connect(port, `${post}{"title":"never fin`), // headers and part of the body
      connect(port, uploadHead + upload.payload.subarray(0, upload.payload.length / 2).toString('latin1')), // half an upload
    ]).flat();
    await sleep(150);
    assert.ok(stalled.every((client) => !client.socket.destroyed), 'all stalled clients are connected');

    assert.equal(await health(port), 200, 'served while held');
    const times = await Promise.all(stalled.map((client) => client.closed));
    const latest = Math.max(...times);
    assert.ok(latest < limits.idleTimeout + slack, `the last stalled connection closed after ${Math.round(latest)} ms`);
    assert.equal(await health(port), 200);

    await sleep(200);
    assert.deepEqual(await listFiles(uploadsDir(t)), [], 'the cut uploads left no file behind');
    assert.equal(await countAttachments(t), 0);
  });

  it('cuts a client trickling its headers at the headers timeout, with a 408 in the one error shape', async () => {
    const client = connect(port, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    void trickle(client, 'X-Slow: a\r\n', 150);
    const closedAfter = await client.closed;
    assert.ok(closedAfter >= limits.headersTimeout - 50 && closedAfter < limits.headersTimeout + slack, `closed after ${Math.round(closedAfter)} ms`);
    const [head, body] = client.received().split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 408 /);
    assert.deepEqual(JSON.parse(body!), { name: 'invalid', message: 'The request was not received in time', data: {} });
  });

  it('cuts a client trickling its body at the request timeout', async () => {
    const head = `POST /api/v1/article HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${keys.admin}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
    const client = connect(port, head);
    void trickle(client, '          ', 150);
    const closedAfter = await client.closed;
    assert.ok(closedAfter >= limits.requestTimeout - 50 && closedAfter < limits.requestTimeout + slack, `closed after ${Math.round(closedAfter)} ms`);
    assert.match(client.received(), /^HTTP\/1\.1 408 /);
  });

  it('lets a slow but moving upload finish, though it lasts longer than the idle timeout', async () => {
    const upload = multipartBody([{ name: 'file', filename: 'slow.png', contentType: 'image/png', content: await makeImage('png', 64, 64) }]);
    const head =
      `POST /api/v1/@cms/attachment/upload HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${keys.admin}\r\nConnection: close\r\n` +
      `Content-Type: ${upload.contentType}\r\nContent-Length: ${upload.payload.length}\r\n\r\n`;
    const client = connect(port, head);
    const pieces = 8;
    const size = Math.ceil(upload.payload.length / pieces);
    for (let piece = 0; piece < pieces; piece++) {
      await sleep(limits.idleTimeout / 4);
      client.socket.write(upload.payload.subarray(piece * size, (piece + 1) * size));
    }
    await client.closed;
    assert.ok(performance.now() - client.opened > limits.idleTimeout * 1.5);
    const [status, body] = client.received().split('\r\n\r\n');
    assert.match(status!, /^HTTP\/1\.1 200 /, client.received());
    assert.equal(JSON.parse(body!).name, 'slow');
  });
});

describe('kept-alive connections', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({ ...testConfig(), limits: { ...limits, requestsPerConnection: 2 } });
    port = await t.listen();
  });
  after(() => t.close());

  const get = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';

  it('closes an idle connection after the keep-alive timeout', async () => {
    const client = connect(port, get);
    const closedAfter = await client.closed;
    assert.match(client.received(), /^HTTP\/1\.1 200 /);
    assert.ok(closedAfter < limits.keepAliveTimeout + slack, `closed after ${Math.round(closedAfter)} ms`);
  });

  it('ends a connection after its last allowed request', async () => {
    const client = connect(port, get);
    await sleep(100);
    client.socket.write(get);
    await client.closed;
    const answers = client.received().split(/(?=HTTP\/1\.1 )/);
    assert.equal(answers.length, 2);
    assert.doesNotMatch(answers[0]!, /connection: close/i);
    assert.match(answers[1]!, /^HTTP\/1\.1 200 [^]*connection: close/i);
  });
});

describe('the connection cap', () => {
  let t: TestApp;
  let port: number;
  const cap = 5;
  before(async () => {
    t = await startTestApp({ ...testConfig(), limits: { ...limits, connections: cap } });
    port = await t.listen();
  });
  after(() => t.close());

  it('closes connections past the cap at once, and serves again when the stalled ones are cut', async () => {
    const stalled = Array.from({ length: cap }, () => connect(port, 'GET /health HTTP/1.1\r\nHost: x\r\n'));
    for (let waited = 0; (await connectionCount(t)) < cap; waited += 20) {
      assert.ok(waited < 2000, 'the stalled connections reach the server');
      await sleep(20);
    }
    const started = performance.now();
    assert.equal(await health(port), 'closed', 'a connection past the cap is refused');
    assert.ok(performance.now() - started < 500, 'refused at once, not left waiting');
    await Promise.all(stalled.map((client) => client.closed));
    assert.equal(await health(port), 200);
  });
});

function connectionCount(t: TestApp): Promise<number> {
  return new Promise((resolve, reject) => t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/**
 * File descriptors this process may open (Linux), or Infinity where that cannot be read. Each
 * connection of these tests costs two here: the client's end and the server's.
 */
async function descriptorLimit(): Promise<number> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  return soft === undefined ? Infinity : Number(soft);
}

/** A connection from `localAddress` that sends a POST's headers announcing 100,000 bytes, then one byte of its body. */
function trickler(port: number, localAddress: string): Promise<net.Socket> {
  const head = 'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => socket.write(head));
    socket.on('error', () => undefined);
    // Connected (held or about to be closed by the server), or refused: either way it has reached the server.
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

describe('one address trickling bodies', () => {
  // Linux routes all of 127.0.0.0/8 to the loopback: the trickling address is not the new client's.
  const attacker = '127.0.0.2';

  describe('on as many connections as the server takes', () => {
    let t: TestApp;
    let port: number;
    let total: number;
    const sockets: net.Socket[] = [];
    before(async () => {
      // The 900 (the default) where the process may open twice that; else the same shape, smaller.
      total = Math.min(limitDefinitions.connections.default, Math.floor(((await descriptorLimit()) - 200) / 2));
      t = await startTestApp({ ...testConfig(), limits: { connections: total } });
      port = await t.listen();
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      await t.close();
    });

    it('holds only its share, and a new client gets /health within 2 s', async () => {
      // In batches, so that the listen backlog is not what refuses them.
      while (sockets.length < total) {
        const batch = Array.from({ length: Math.min(100, total - sockets.length) }, () => trickler(port, attacker));
        sockets.push(...(await Promise.all(batch)));
      }
      // Settled: every trickler is held by the server or was closed by it.
      for (let waited = 0; sockets.filter((socket) => socket.destroyed).length + (await connectionCount(t)) < total; waited += 20) {
        assert.ok(waited < 10_000, 'every trickling connection reached the server');
        await sleep(20);
      }
      assert.equal(await connectionCount(t), limitDefinitions.connectionsPerAddress.default, 'the trickling address holds its share');
      const started = performance.now();
      assert.equal(await health(port), 200, 'a new client is served');
      const took = performance.now() - started;
      assert.ok(took < 2000, `answered after ${Math.round(took)} ms`);
    });
  });

  describe('slower than the minimum body rate', () => {
    let t: TestApp;
    let port: number;
    const rate = { minBodyRate: 500, bodyRateGrace: 1000 };
    before(async () => {
      t = await startTestApp({ ...testConfig(), limits: rate });
      port = await t.listen();
    });
    after(() => t.close());

    const head = (length: number) =>
      `POST /api/v1/article HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${keys.admin}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`;

    it('answers a body trickled a byte at a time with 408 once the grace period has passed, and closes it', async () => {
      const client = connect(port, `${head(100_000)}{`);
      void trickle(client, ' ', 200);
      const closedAfter = await client.closed;
      assert.ok(closedAfter >= rate.bodyRateGrace - 50 && closedAfter < rate.bodyRateGrace + slack, `closed after ${Math.round(closedAfter)} ms`);
      const [status, body] = client.received().split('\r\n\r\n');
      assert.match(status!, /^HTTP\/1\.1 408 /);
      assert.deepEqual(JSON.parse(body!), { name: 'invalid', message: 'The request body arrived too slowly', data: {} });
      assert.equal(await health(port), 200);
    });

    it('takes a body that arrives in pieces past the grace period at more than the minimum rate', async () => {
      const json = Buffer.from(`{"title":"steady"${' '.repeat(2983)}}`);
      const client = connect(port, head(json.length));
      // 150 bytes every 100 ms: 1,500 bytes/s, three times the minimum, for 2 s.
      for (let offset = 0; offset < json.length; offset += 150) {
        await sleep(100);
        client.socket.write(json.subarray(offset, offset + 150));
      }
      await client.closed;
      assert.ok(performance.now() - client.opened > rate.bodyRateGrace * 1.5);
      const [status, body] = client.received().split('\r\n\r\n');
      assert.match(status!, /^HTTP\/1\.1 200 /, client.received());
      assert.equal(JSON.parse(body!).title, 'steady');
    });
  });
});
