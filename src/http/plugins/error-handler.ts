import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { mapError } from '../error-mapper.js';

/** Every error, ours or the framework's, leaves through `mapError`: one shape, one status table. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body, internal, headers } = mapError(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    else request.log.debug({ err: error }, 'request refused');
    if (headers) void reply.headers(headers);
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const { status, body } = mapError(new NotFoundError());
    void reply.code(status).send(body);
  });
}

/**
 * Fastify's `frameworkErrors` option: the router's refusals (a malformed URL, a path parameter
 * over `maxParamLength`) are answered before any handler exists, in Fastify's own shape unless
 * this sends them through `mapError` too.
 */
export function sendFrameworkError(error: Error, _request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = mapError(error);
  void reply.code(status).send(body);
}

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses (a malformed request line,
 * headers over the size limit, conflicting lengths) never reach Fastify, so the answer is written
 * to the socket here, with the parser's status and the one error shape.
 */
export function sendClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive']
        : [400, 'Bad Request', 'The request is not valid HTTP'];
  const body = JSON.stringify(mapError(new InvalidRequestError(message)).body);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
