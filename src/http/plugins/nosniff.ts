import type { FastifyInstance } from 'fastify';

/**
 * Every response says `X-Content-Type-Options: nosniff`: a browser must never read a JSON answer
 * (which echoes client input in error messages) or a stored file as HTML or script.
 */
export function registerNosniff(app: FastifyInstance): void {
  // Callback hooks cost no promise per request, where async ones do.
  app.addHook('onSend', (_request, reply, _payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
}
