import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Every answer waits until the request body has arrived. A refusal sent before the body is read
 * (a bad key in `onRequest`, a 404, a 415, a body past its limit) would otherwise be followed by
 * the server closing a connection that still has unread bytes, and the kernel then resets it: the
 * client gets a socket error instead of the JSON error. So the rest of the body is read and
 * thrown away, up to `maxBytes` and `timeout`; past either, the answer says `Connection: close`.
 */
export function registerBodyDrain(app: FastifyInstance, limits: { maxBytes: number; timeout: number }): void {
  app.addHook('onSend', async (request, reply) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) return;
    const declared = Number(raw.headers['content-length']);
    const drained = declared > limits.maxBytes ? false : await drain(raw, limits);
    if (!drained) reply.header('connection', 'close');
  });
}

/** Reads the stream to its end; false when it is longer than `maxBytes`, slower than `timeout` or aborted. */
function drain(stream: IncomingMessage, limits: { maxBytes: number; timeout: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), limits.timeout);
    stream.on('data', onData).on('end', onEnd).on('close', onClose);
    stream.resume();
  });
}
