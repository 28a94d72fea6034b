import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
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
 * POSTs `size` bytes in chunks and resolves with the answer, as any client would read it: an
 * answer that arrives while the body is still being written counts; a reset before it does not.
 */
export function postLarge(port: number, path: string, headers: Record<string, string>, size: number, prefix = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // No agent: the socket is this request's alone and closes with it.
    const request = httpRequest({ host: '127.0.0.1', port, agent: false, method: 'POST', path, headers: { ...headers, 'content-length': String(size) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
        // The rest of the body is of no interest once the answer is in.
        request.destroy();
      });
      response.on('error', reject);
    });
    request.on('error', (error) => reject(new Error(`${path}: ${error.message} before the answer`)));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    request.write(prefix);
    let sent = Buffer.byteLength(prefix);
    const write = () => {
      while (sent < size && !request.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', write);
      }
      request.end();
    };
    write();
  });
}
