/**
 * The bare baseline: a Fastify server that answers every request with one captured response
 * (status, headers, body bytes) from memory. Run as a forked child: it sends `{ address }` once
 * it listens; each `Captured` message the parent sends replaces the answer, acknowledged `'ready'`.
 */
import Fastify from 'fastify';

export interface Captured {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** base64 */
  readonly body: string;
}

// Framing headers are the server's own, not the captured response's.
const hopHeaders = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);

async function main(): Promise<void> {
  let current: { status: number; headers: Record<string, string>; body: Buffer } = { status: 204, headers: {}, body: Buffer.alloc(0) };
  const app = Fastify({ logger: false, bodyLimit: 1024 ** 3 });
  // Request bodies (JSON, multipart) are read and dropped, as cheaply as Node allows.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
  });
  app.all('/*', (_request, reply) => {
    reply.code(current.status).headers(current.headers).send(current.body);
  });
  process.on('message', (message: Captured) => {
    const headers = Object.fromEntries(Object.entries(message.headers).filter(([name]) => !hopHeaders.has(name)));
    current = { status: message.status, headers, body: Buffer.from(message.body, 'base64') };
    process.send!('ready');
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ address });
}

await main();
