import type { Socket } from 'node:net';
import { InvalidRequestError } from '../errors/app-error.js';
import { mapError } from './error-mapper.js';

/** A body that arrived slower than `limits.minBodyRate` (`body-rate.ts`), in the codes below. */
export const bodyTooSlow = 'CMS_BODY_TOO_SLOW';

/** What Node's HTTP parser refuses before Fastify sees a request, by Node's error code. */
function statusOf(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === bodyTooSlow) return { status: 408, reason: 'Request Timeout', message: 'The request body arrived too slowly' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'The request was not received in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large' };
  return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP' };
}

/**
 * Fastify's `clientErrorHandler`: malformed HTTP, oversized headers and requests that stalled
 * past their timeout get the one JSON error shape (Fastify's default writes its own shape), then
 * the connection is closed: nothing more can be read from it safely.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET') return;
  answerAndClose(socket, error.code);
}

/** Writes the error the code stands for (if the socket still takes it) and closes the connection. */
export function answerAndClose(socket: Socket, code: string | undefined): void {
  if (socket.destroyed) return;
  const { status, reason, message } = statusOf(code);
  const json = JSON.stringify(mapError(new InvalidRequestError(message)).body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}
