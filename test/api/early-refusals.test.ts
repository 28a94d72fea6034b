import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

interface Exchange {
  /** Every byte the server sent. */
  readonly response: string;
  /** A socket error seen by the client (EPIPE, ECONNRESET), if any. */
  readonly error: string | undefined;
  readonly bodySent: boolean;
}

/**
 * A plain HTTP/1.1 client: writes the headers, then the whole body in 64 KiB chunks as fast as
 * the server takes them, then reads the answer until the server closes the connection.
 */
function exchange(port: number, head: string, bodySize: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let response = '';
    let error: string | undefined;
    let sent = 0;
    socket.setEncoding('latin1');
    socket.on('data', (data) => (response += data));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => resolve({ response, error, bodySent: sent >= bodySize }));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    const pump = () => {
      while (sent < bodySize && !socket.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bodySize - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

function parse(response: string): { status: number; headers: string; body: any } {
  const split = response.indexOf('\r\n\r\n');
  const head = response.slice(0, split);
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(response.slice(split + 4)) };
}

const size = 4 * 1024 * 1024;

/** Requests refused before their body is read, each with `Connection: close` as simple clients send. */
const refusals = [
  { auth: 'Authorization: ApiKey wrong-key-0123456789\r\n', url: '/api/v1/article', type: 'application/json', status: 403, name: 'forbidden' },
  { auth: 'Authorization: Bearer not-a-token\r\n', url: '/api/v1/article', type: 'application/json', status: 401, name: 'unauthorized' },
  { auth: `Authorization: ApiKey ${keys.admin}\r\n`, url: '/api/v1/no-such-type', type: 'application/json', status: 404, name: 'notfound' },
  { auth: `Authorization: ApiKey ${keys.admin}\r\n`, url: '/api/v1/article', type: 'text/plain', status: 415, name: 'unsupported' },
];

function head(refusal: (typeof refusals)[number], length: number): string {
  return `POST ${refusal.url} HTTP/1.1\r\nHost: x\r\n${refusal.auth}Content-Type: ${refusal.type}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
}

describe('a refusal sent before the body is read reaches the client', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp();
    port = await t.listen();
  });
  after(() => t.close());

  it('delivers the whole JSON error for a 4 MiB body, 200 times in a row, never a socket error', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 200; round++) {
      const refusal = refusals[round % refusals.length]!;
      const result = await exchange(port, head(refusal, size), size);
      try {
        assert.equal(result.error, undefined);
        assert.ok(result.bodySent);
        const { status, body } = parse(result.response);
        assert.equal(status, refusal.status);
        assert.equal(body.name, refusal.name);
      } catch (error) {
        failures.push(`round ${round} (${refusal.status}): ${(error as Error).message.split('\n')[0]}`);
      }
    }
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of 200 failed`);
  });
});

describe('draining is bounded', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({ ...testConfig(), bodyLimit: 1024 * 1024, uploadLimit: 1024 * 1024, limits: { drainTimeout: 300 } });
    port = await t.listen();
  });
  after(() => t.close());

  it('reads a body larger than any accepted body to deliver the refusal, then closes the connection', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/article',
      headers: { authorization: 'ApiKey wrong-key-0123456789', 'content-type': 'application/json' },
      payload: Buffer.alloc(2 * 1024 * 1024, 0x20),
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.headers.connection, 'close');
    assert.equal(res.json().name, 'forbidden');
  });

  it('answers a stalled body after the drain timeout, closing the connection', async () => {
    const started = performance.now();
    const result = await exchange(port, head(refusals[0]!, 500_000), 100_000);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 3000, `answered after ${Math.round(elapsed)} ms`);
    const { status, headers, body } = parse(result.response);
    assert.equal(status, 403);
    assert.match(headers, /connection: close/);
    assert.equal(body.name, 'forbidden');
  });

  it('reads a small unread body and keeps the connection open', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/article',
      headers: { authorization: 'ApiKey wrong-key-0123456789', 'content-type': 'application/json' },
      payload: '{"title":"x"}',
    });
    assert.equal(res.statusCode, 403);
    assert.notEqual(res.headers.connection, 'close');
  });
});
