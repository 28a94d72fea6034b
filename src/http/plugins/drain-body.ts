import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Every answer waits until the request body has arrived. A refusal sent before the body is read
 * (a bad key in `onRequest`, a 404, a 415, a body past its limit) would otherwise be followed by
 * the server closing a connection that still has unread bytes, and the kernel then resets it: the
 * client, still sending, gets a socket error instead of the JSON error. So the rest of the body is
 * read and thrown away (a lingering close, as nginx and Apache do), for at most `timeout` ms. A
 * body that did not end in time, or that was larger than any this server accepts (`maxBytes`),
 * is answered with `Connection: close`: the connection is not worth keeping.
 */
export function registerBodyDrain(app: FastifyInstance, limits: { maxBytes: number; timeout: number }): void {
  // A callback hook: the answers whose body has arrived (nearly all) cost no promise.
  app.addHook('onSend', (request, reply, _payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) return done();
    void drain(raw, limits.timeout).then(({ ended, bytes }) => {
      if (!ended || bytes > limits.maxBytes) reply.header('connection', 'close');
      done();
    });
  });
}

/** Reads and discards the stream until it ends, is aborted or `timeout` passes. */
function drain(stream: IncomingMessage, timeout: number): Promise<{ ended: boolean; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve({ ended, bytes });
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), timeout);
    stream.on('data', onData).on('end', onEnd).on('close', onClose);
    stream.resume();
  });
}
