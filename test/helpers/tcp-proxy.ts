import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** One client connection and the connection to the target it is relayed to. */
interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Set by `hold`: what the target sends waits until the client next writes. */
  held: boolean;
  /** Set by `cutOnAnswerTo`: the target's next answer is dropped and the connection cut. */
  cutOnAnswer: boolean;
  /** Set by `freeze`: what either side sends is dropped. */
  frozen: boolean;
}

/**
 * A TCP relay on a loopback port in front of a server (PostgreSQL), which a test can cut and
 * restore as a restart or a network cut would, without touching the server other runs use.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  /** Ends every relayed connection and stops listening: a new connection is refused. */
  cut(): Promise<void>;
  /**
   * Ends every relayed connection; a new one is accepted and then left without an answer, as
   * when the server's host is cut off the network.
   */
  stall(): void;
  /**
   * Relays nothing more either way on the connections open now, and leaves them open: what a
   * client meets on a connection whose server died without a reset (a killed host, a cut
   * network). New connections are relayed.
   */
  freeze(): void;
  /** Relays again, listening again on the same port after `cut`, ending every frozen connection. */
  restore(): Promise<void>;
  /**
   * Holds what the target sends on the connections open now, until their client next writes:
   * then it is delivered (and the end of the connection, if the target ended it meanwhile) and
   * what the client wrote is dropped. With the target's sessions ended meanwhile, the client
   * meets the end only when it uses the connection, as after a restart it did not see.
   * Returns the ports the connections to the target have on this side (`client_port` in
   * pg_stat_activity).
   */
  hold(): number[];
  /** How many held connections their client wrote to. */
  readonly heldWrites: number;
  /**
   * The next time a client sends `text` (a statement, `COMMIT`), it reaches the target, and the
   * target's answer is dropped and the connection cut: the target did the work, the client never
   * hears so. Resolves once that has happened.
   */
  cutOnAnswerTo(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const unanswered = new Set<Socket>();
  let stalled = false;
  let heldWrites = 0;
  let cutArmed: { text: string; done: () => void } | undefined;
  let server: Server = await listen(0);
  const port = (server.address() as AddressInfo).port;

  function listen(onPort: number): Promise<Server> {
    const listening = createServer(relay);
    listening.listen(onPort, '127.0.0.1');
    return once(listening, 'listening').then(() => listening);
  }

  function endAll(): void {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    for (const socket of unanswered) socket.destroy();
    unanswered.clear();
  }

  function relay(client: Socket): void {
    if (stalled) {
      unanswered.add(client);
      client.on('error', () => client.destroy());
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, held: false, cutOnAnswer: false, frozen: false };
    pairs.add(pair);
    const destroy = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      if (pair.frozen) return;
      if (cutArmed && chunk.includes(cutArmed.text)) pair.cutOnAnswer = true;
      if (!pair.held) {
        upstream.write(chunk);
        return;
      }
      // The first write after the hold: what the target sent meanwhile reaches the client now.
      pair.held = false;
      heldWrites++;
      upstream.resume();
    });
    upstream.on('data', (chunk) => {
      if (pair.frozen) return;
      if (!pair.cutOnAnswer) {
        client.write(chunk);
        return;
      }
      destroy();
      cutArmed?.done();
      cutArmed = undefined;
    });
    upstream.on('end', () => client.end());
    client.on('end', () => upstream.end());
    for (const socket of [client, upstream]) socket.on('error', destroy).on('close', () => pairs.delete(pair));
  }

  return {
    port,
    urlThrough(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    async cut() {
      const closed = new Promise((resolve) => server.close(resolve));
      endAll();
      await closed;
    },
    stall() {
      stalled = true;
      endAll();
    },
    freeze() {
      for (const pair of pairs) pair.frozen = true;
    },
    async restore() {
      for (const pair of pairs) {
        if (pair.frozen) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
      }
      if (stalled) {
        stalled = false;
        endAll();
      } else if (!server.listening) server = await listen(port);
    },
    cutOnAnswerTo(text) {
      return new Promise((resolve) => (cutArmed = { text, done: resolve }));
    },
    hold() {
      const ports: number[] = [];
      for (const pair of pairs) {
        pair.held = true;
        pair.upstream.pause();
        ports.push(pair.upstream.localPort!);
      }
      return ports;
    },
    get heldWrites() {
      return heldWrites;
    },
    async close() {
      const closed = new Promise((resolve) => (server.listening ? server.close(resolve) : resolve(undefined)));
      endAll();
      await closed;
    },
  };
}
