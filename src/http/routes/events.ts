import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../content/app-config.js';
import type { ChangeFeed } from '../../content/changes/change-feed.js';
import type { PresenceAnnouncement, PresenceBoard } from '../../content/presence/presence-board.js';
import { ChangeAudience, parseChangeFilter } from '../../content/changes/change-audience.js';
import { InvalidRequestError, RetryLaterError } from '../../errors/app-error.js';
import { clientOf } from '../connections-per-address.js';

export interface EventStreamLimits {
  readonly perCaller: number;
  readonly perAddress: number;
  readonly heartbeatMs: number;
  readonly lifetimeMs: number;
}

/** Open streams per key (a caller, an address), counted up before a stream is let in. */
class OpenStreams {
  readonly #open = new Map<string, number>();

  /** Takes a place for `key`, or answers false when it holds `max` already. */
  take(key: string, max: number): boolean {
    const count = this.#open.get(key) ?? 0;
    if (count >= max) return false;
    this.#open.set(key, count + 1);
    return true;
  }

  release(key: string): void {
    const count = (this.#open.get(key) ?? 1) - 1;
    if (count <= 0) this.#open.delete(key);
    else this.#open.set(key, count);
  }
}

/** The Last-Event-ID a reconnecting client sends (or `lastEventId` in the query, for clients that cannot set headers). */
function lastEventIdOf(request: FastifyRequest): number | null {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown>).lastEventId;
  const value = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
  if (value === undefined || value === '') return null;
  if (!/^\d{1,15}$/.test(value)) throw new InvalidRequestError('Last-Event-ID must be the id of an event', { parameter: 'Last-Event-ID' });
  return Number(value);
}

/** `?presence=true`: the stream also tells who is on which document (`event: presence`), to callers who may read its drafts. */
function wantsPresence(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown>).presence;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidRequestError('presence must be true or false', { parameter: 'presence' });
}

/**
 * GET /api/v1/@cms/events: the committed changes, as server-sent events (`id:` the change's place
 * in the change log, `event:` its action, `data:` the announcement), each only to the callers who
 * may read the version (ChangeAudience). Bounded: streams per caller and per address, counted
 * before the stream opens; a heartbeat comment; a lifetime after which the client reconnects with
 * `Last-Event-ID` and its rights are checked again.
 */
export function registerEventRoutes(app: FastifyInstance, deps: { config: AppConfig; feed: ChangeFeed; presence: PresenceBoard; limits: EventStreamLimits }): void {
  const byCaller = new OpenStreams();
  const byAddress = new OpenStreams();
  // A stream lasts until its lifetime: the server's close ends them first, or it would wait for them.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });
  app.get('/api/v1/@cms/events', async (request, reply) => {
    const audience = new ChangeAudience(deps.config, request.principal, parseChangeFilter(request.query as Record<string, unknown>));
    const after = lastEventIdOf(request);
    const presence = wantsPresence(request) ? deps.presence : null;
    const address = clientOf(request.socket.remoteAddress ?? '');
    const caller = request.callerId;
    if (!byAddress.take(address, deps.limits.perAddress)) throw tooMany('address');
    if (caller !== null && !byCaller.take(caller, deps.limits.perCaller)) {
      byAddress.release(address);
      throw tooMany('caller');
    }
    const release = () => {
      byAddress.release(address);
      if (caller !== null) byCaller.release(caller);
    };
    await openStream(request, reply, { feed: deps.feed, presence, audience, after, limits: deps.limits, release, open });
  });
}

function tooMany(per: 'caller' | 'address'): RetryLaterError {
  const limit = per === 'caller' ? 'eventStreamsPerCaller' : 'eventStreamsPerAddress';
  return new RetryLaterError('toomany', `Too many event streams are open ${per === 'caller' ? 'for this caller' : 'from this address'}`, 5, { limit });
}

async function openStream(
  request: FastifyRequest,
  reply: FastifyReply,
  args: { feed: ChangeFeed; presence: PresenceBoard | null; audience: ChangeAudience; after: number | null; limits: EventStreamLimits; release: () => void; open: Set<() => void> },
): Promise<void> {
  const { feed, presence, audience, after, limits, release, open } = args;
  const raw = reply.raw;
  let ended = false;
  /** What the feeds told before the stream's head went out: sent right after it. */
  let early: string[] | null = [];
  let subscription: Awaited<ReturnType<ChangeFeed['subscribe']>> | undefined;
  let presenceSubscription: Awaited<ReturnType<PresenceBoard['subscribe']>> | undefined;
  const timers: NodeJS.Timeout[] = [];
  const socket = request.raw.socket;
  const end = () => {
    if (ended) return;
    ended = true;
    open.delete(end);
    for (const timer of timers) clearInterval(timer);
    subscription?.stop();
    presenceSubscription?.stop();
    release();
    // The socket outlives the stream on keep-alive: its listener goes with the stream.
    socket.off('close', end);
    raw.end();
  };
  // A client that reads nothing does not pile events up in memory: it is cut.
  const write = (text: string) => {
    if (ended) return;
    if (early) early.push(text);
    else if (!raw.write(text) && raw.writableLength > 1024 * 1024) end();
  };
  // Presence events carry no id: a reconnect's Last-Event-ID stays that of the last change.
  const tellPresence = (announcements: readonly PresenceAnnouncement[]) => {
    let text = '';
    for (const announcement of announcements) {
      if (audience.hearsPresence(announcement)) text += `event: presence\ndata: ${JSON.stringify(announcement)}\n\n`;
    }
    if (text !== '') write(text);
  };
  // Subscribed before the head goes out: a store that does not answer is a 503 in the one error shape, not an empty stream.
  try {
    subscription = await feed.subscribe(
      {
        types: audience.types,
        changes(changes) {
          let text = '';
          for (const change of changes) {
            const announcement = audience.announce(change);
            if (announcement) text += `id: ${change.seq}\nevent: ${change.action}\ndata: ${JSON.stringify(announcement)}\n\n`;
          }
          if (text !== '') write(text);
        },
        resync(latest) {
          write(`id: ${latest}\nevent: resync\ndata: ${JSON.stringify({ latest })}\n\n`);
        },
      },
      after,
    );
    if (presence) presenceSubscription = await presence.subscribe(tellPresence);
  } catch (error) {
    subscription?.stop();
    release();
    throw error;
  }
  open.add(end);
  socket.on('close', end);
  raw.on('close', end);
  reply.hijack();
  // The client left while the stream was being set up.
  if (socket.destroyed) return end();
  // What the hooks set so far (CORS, security headers) goes out with the stream's own.
  raw.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  const told = early;
  early = null;
  // Reconnect after 2 s when cut; the line also opens the stream for clients that wait for a first byte.
  write('retry: 2000\n\n');
  for (const text of told) write(text);
  if (presenceSubscription) tellPresence(presenceSubscription.current);
  timers.push(setInterval(() => write(': heartbeat\n\n'), limits.heartbeatMs));
  timers.push(setTimeout(end, limits.lifetimeMs));
}
