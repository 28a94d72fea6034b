import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, with what it answered. */
export interface ReceivedHook {
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  // Tests read arbitrary payload properties; the assertions check their shape.
  readonly payload: any;
  readonly answered: number | 'hung';
}

/** What the receiver answers the n-th request (from 1): a status, or never ('hang'). */
export type Answer = (request: { n: number; payload: any }) => number | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedHook[];
  answer: Answer;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records every webhook request and answers as told. */
export async function startReceiver(answer: Answer = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const hung = new Set<ServerResponse>();
  let waiters: (() => void)[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    answer,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length} webhook requests arrived, not ${count}`)), timeoutMs);
        const check = () => {
          if (received.length < count) return void waiters.push(check);
          clearTimeout(timer);
          resolve(received.slice(0, count));
        };
        check();
      });
    },
    async close() {
      for (const response of hung) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const payload = JSON.parse(body);
      const answered = receiver.answer({ n: received.length + 1, payload });
      received.push({ at: Date.now(), headers: request.headers, body, payload, answered: answered === 'hang' ? 'hung' : answered });
      if (answered === 'hang') hung.add(response);
      else response.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
      const current = waiters;
      waiters = [];
      for (const waiter of current) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Whether the request carries a valid signature of its body by `secret`, as the README tells receivers to check. */
export function signatureIsValid(hook: ReceivedHook, secret: string): boolean {
  const timestamp = String(hook.headers['cms-webhook-timestamp']);
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${hook.body}`).digest('hex')}`);
  const given = Buffer.from(String(hook.headers['cms-webhook-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
