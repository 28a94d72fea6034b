import { connect } from 'node:net';
import fc from 'fast-check';
import { junkId } from './hostile-arbitraries.js';
import type { Answer } from './hostile-requests.js';

/**
 * HTTP over a real socket, for what inject cannot show: requests Node's parser refuses, paths
 * sent exactly as written (no `..` normalisation), and large bodies refused before they are read.
 */

/** Writes the bytes as they are and reads one response (headers, then Content-Length bytes unless it answers a HEAD). */
export function rawExchange(port: number, bytes: Buffer, timeoutMs = 5000): Promise<Answer> {
  const head = bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no complete response within ${timeoutMs} ms: ${received.toString('latin1').slice(0, 200)}`)), timeoutMs);
    function finish(error: Error | null, answer?: Answer) {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    }
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const answer = parseResponse(received, head);
      if (answer) finish(null, answer);
    });
    socket.on('error', (error) => finish(new Error(`socket error before a response: ${error.message}`)));
    socket.on('close', () => finish(new Error(`closed without a complete response: ${received.toString('latin1').slice(0, 200)}`)));
    socket.write(bytes);
  });
}

function parseResponse(received: Buffer, head: boolean): Answer | null {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = head ? 0 : Number(headers['content-length'] ?? 0);
  const body = received.subarray(end + 4);
  if (body.length < length) return null;
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
  return { status, headers, text: body.subarray(0, length).toString('utf8') };
}

/**
 * POSTs `size` bytes (after `prefix`) and reads the answer only once the whole body is written, as
 * simple clients do: a server that closes the connection on a body it has not read makes the
 * client's kernel drop that answer (the write fails with EPIPE or ECONNRESET), which counts as no answer.
 */
export function postLarge(port: number, path: string, headers: Record<string, string>, size: number, prefix = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let received = Buffer.alloc(0);
    const fail = (reason: string) => {
      socket.destroy();
      reject(new Error(`POST ${path} (${size} bytes): ${reason}`));
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parseResponse(received, false);
      if (!answer) return;
      socket.destroy();
      resolve(answer);
    });
    socket.on('error', (error) => fail(`${error.message} before the answer`));
    socket.on('close', () => fail(`closed without a complete answer: ${received.toString('latin1').slice(0, 200)}`));
    const lines = Object.entries({ host: 'x', ...headers, 'content-length': String(size) }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n${prefix}`);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = Buffer.byteLength(prefix);
    const write = () => {
      while (sent < size && !socket.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', write);
      }
      socket.resume();
    };
    write();
  });
}

/** Requests as bytes: what Node's parser refuses, paths exactly as written, smuggling attempts. */
export function rawRequest(files: readonly string[]): fc.Arbitrary<string> {
  const path = fc.oneof(
    fc.constantFrom(
      '/uploads/../cms.sqlite', '/uploads/attachments/../../cms.sqlite', '/uploads/./attachments/../../cms.sqlite', '/uploads/attachments/%2e%2e/%2e%2e/cms.sqlite',
      '/uploads\\..\\cms.sqlite', '/uploads/.tmp/', '/api/v1/../../cms.sqlite', '/api/v1/article/..', 'http://evil.example/api/v1/article', '*', '/api/v1/article#x',
    ),
    fc.constantFrom(...files).map((file) => `/uploads/${file.replace('attachments/', 'attachments/./')}`),
    junkId.map((id) => `/api/v1/article/${id}`),
  );
  const wellFormed = fc.tuple(fc.constantFrom('GET', 'HEAD', 'DELETE', 'PUT'), path).map(([method, p]) => `${method} ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const oversized = fc.tuple(fc.integer({ min: 17_000, max: 100_000 }), fc.boolean()).map(([n, many]) =>
    `GET /api/v1/article HTTP/1.1\r\nHost: x\r\n${many ? Array.from({ length: n / 100 }, (_, i) => `X-${i}: ${'h'.repeat(90)}\r\n`).join('') : `X-Big: ${'h'.repeat(n)}\r\n`}\r\n`,
  );
  const malformed = fc.constantFrom(
    'GARBAGE\r\n\r\n', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /api/v1/\u0000article HTTP/1.1\r\nHost: x\r\n\r\n', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
    'get / HTTP/1.1\r\nHost: x\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
    'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}',
    'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
    'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'POST /api/v1/article HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
  );
  return fc.oneof(wellFormed, oversized, malformed);
}
