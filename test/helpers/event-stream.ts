import { request, type IncomingMessage } from 'node:http';

/** One server-sent event as a client reads it. */
export interface StreamEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: any;
}

/** An open `text/event-stream` over real HTTP, its events parsed as they come. */
export interface EventStreamClient {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** Every event so far. */
  readonly events: StreamEvent[];
  /** Comment lines so far (heartbeats). */
  readonly comments: string[];
  /** The JSON error of a refused stream. */
  readonly body?: any;
  /** Resolves with the first event (received or to come) that passes `test`. */
  next(test: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves once the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: StreamEvent[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let body = '';
      res.setEncoding('utf8');
      const ended = new Promise<void>((done) => res.on('close', done));
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
            }
          }
          if (fields.data !== undefined) events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) });
        }
        for (const wake of waiters) wake();
      });
      const client: EventStreamClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        ended,
        next(test, timeoutMs = 5_000) {
          return new Promise((found, fail) => {
            const check = () => {
              const event = events.find(test);
              if (!event) return;
              clearTimeout(timer);
              waiters.delete(check);
              found(event);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no such event within ${timeoutMs} ms; received: ${JSON.stringify(events)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      };
      if (res.statusCode === 200) resolve(client);
      else res.on('end', () => resolve(Object.assign(client, { body: JSON.parse(body) })));
    });
    req.on('error', reject);
    req.end();
  });
}
