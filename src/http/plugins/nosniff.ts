import type { FastifyInstance } from 'fastify';

/**
 * Every response says `X-Content-Type-Options: nosniff`: a browser must never read a JSON answer
 * (which echoes client input in error messages) or a stored file as HTML or script.
 */
export function registerNosniff(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });
}
