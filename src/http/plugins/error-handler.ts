import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../errors/app-error.js';
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
