import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/principal.js';
import { mapError } from '../error-mapper.js';
import { unknownTypeExplainer } from '../unknown-type.js';

/**
 * Every error, ours or the framework's, leaves through `mapError`: one shape, one status table.
 * Registered before the routes: a 404 tells a mistyped piece type from the routes it knows.
 */
export function registerErrorHandling(app: FastifyInstance, deps: { readableTypes: (principal: Principal) => readonly string[] }): void {
  const notFound = unknownTypeExplainer(app, deps.readableTypes);
  app.setErrorHandler((error, request, reply) => {
    const { status, body, internal, headers } = mapError(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    // A 503 is no client's doing (the database away, the server too busy): the operator's to see.
    else if (status === 503) request.log.warn({ err: error }, 'request refused: unavailable');
    else request.log.debug({ err: error }, 'request refused');
    if (headers) void reply.headers(headers);
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const { status, body } = mapError(notFound(request));
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
