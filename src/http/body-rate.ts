import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { answerAndClose, bodyTooSlow } from './client-errors.js';

/** A request whose body is still arriving: what its connection had read when its headers ended. */
interface PendingBody {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly started: number;
  readonly bytesAtStart: number;
}

export interface BodyRateLimits {
  /** Bytes per second a body must average, counted from the end of its headers. */
  readonly minBytesPerSecond: number;
  /** How long a body may arrive at any pace before its average is checked, in ms. */
  readonly graceMs: number;
}

/**
 * Cuts a request whose body arrives slower than `minBytesPerSecond` on average once `graceMs` have
 * passed since its headers, with a 408 in the one error shape. `requestTimeout` alone lets a client
 * hold a connection for minutes with a byte every few seconds; this makes holding one cost
 * bandwidth. A body the server itself has stopped reading (bytes waiting in the request stream) is
 * not the client's slowness and is left alone. One timer for all pending bodies, running only while
 * there are some.
 */
export function requireBodyRate(server: Server, limits: BodyRateLimits): void {
  const pending = new Set<PendingBody>();
  const every = Math.max(50, Math.min(1000, Math.floor(limits.graceMs / 4)));
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const now = performance.now();
    for (const body of pending) {
      const verdict = verdictOf(body, now, limits);
      if (verdict === 'waiting') continue;
      pending.delete(body);
      if (verdict === 'too slow') answerAndClose(body.request.socket, bodyTooSlow);
    }
    if (pending.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!hasBody(request)) return;
    pending.add({ request, response, started: performance.now(), bytesAtStart: request.socket.bytesRead });
    timer ??= setInterval(check, every).unref();
  });
}

/** Done: the body arrived, the connection closed, or the answer has begun (its own timeouts hold). */
function verdictOf(body: PendingBody, now: number, limits: BodyRateLimits): 'done' | 'waiting' | 'too slow' {
  const { request, response } = body;
  if (request.complete || request.socket.destroyed || response.headersSent) return 'done';
  const elapsed = now - body.started;
  if (elapsed < limits.graceMs || request.readableLength > 0) return 'waiting';
  const bytesPerSecond = ((request.socket.bytesRead - body.bytesAtStart) * 1000) / elapsed;
  return bytesPerSecond < limits.minBytesPerSecond ? 'too slow' : 'waiting';
}

/** A request announces a body by a non-zero Content-Length or a Transfer-Encoding. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
