import net from 'node:net';

/**
 * A TCP proxy on loopback that holds every chunk `delayMs` before passing it on, each way: the
 * database as servers see it when it runs on another host (BENCH_PG_LATENCY_MS). A process that
 * waits on round trips rather than on its CPU shows what a second process adds.
 */
export async function startLatencyProxy(target: { host: string; port: number }, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    // Chunks keep their order: each is held the same time, and timers of one delay fire in order.
    client.on('data', (chunk) => setTimeout(() => upstream.write(chunk), delayMs));
    upstream.on('data', (chunk) => setTimeout(() => client.write(chunk), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
