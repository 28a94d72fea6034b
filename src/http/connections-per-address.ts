import type { Server, Socket } from 'node:net';

/**
 * Closes a connection at once when its client address already holds `max` open ones, so that one
 * address cannot take every connection the server accepts (`limits.connections`) and leave none
 * for anyone else. Counted on the socket, before any HTTP: behind a proxy every connection comes
 * from the proxy's address, whatever `trustProxy` says. An IPv6 client counts by its /64 network,
 * which one host usually holds whole.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) return; // already closed
    const client = clientOf(socket.remoteAddress);
    const count = (open.get(client) ?? 0) + 1;
    open.set(client, count);
    socket.once('close', () => {
      const left = open.get(client)! - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
    if (count > max) socket.destroy();
  });
}

/** What one client is counted as: an IPv4 address (IPv4-mapped IPv6 included), or an IPv6 /64. */
export function clientOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded, without leading zeros; a zone (`%eth0`) is dropped. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // A trailing dotted IPv4 part (`64:ff9b::1.2.3.4`) stands for two groups.
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const zeros = Array.from({ length: Math.max(0, 8 - width(left) - width(right)) }, () => '0');
  return [...left, ...zeros, ...right].map((group) => (group.includes('.') ? group : (parseInt(group, 16) || 0).toString(16)));
}
