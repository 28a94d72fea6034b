import { createHash } from 'node:crypto';
import type { WebhookDelivery } from '../storage/storage-adapter.js';

/** One change's purge as the outbox keeps it (`purgeDeliveriesOf`). */
interface PurgeEvent {
  readonly id: string;
  readonly type: string;
  readonly cmsDocId: string;
  readonly cause: string;
  readonly at: string;
  readonly tags: readonly string[];
}

/** One POST to a purging endpoint: some of the gathered events' tags, with the changes that made them. */
export interface PurgeRequest {
  readonly id: string;
  readonly payload: string;
}

/**
 * The requests that tell one endpoint of these purge deliveries: their tags once each, in the
 * order the changes made them, `maxTags` a request at most (the CDN's limit of one purge call),
 * each naming the changes whose tags it carries. A lone event whose tags fit keeps its own id;
 * a batch's id comes from its events' ids and its place, the same on a retry of the same batch
 * (a retry may gather more events: a purge is harmless to repeat, so nothing depends on it).
 */
export function purgeRequestsOf(deliveries: readonly WebhookDelivery[], maxTags: number, now: Date): PurgeRequest[] {
  const events = deliveries.map((delivery) => JSON.parse(delivery.payload) as PurgeEvent);
  const tags = [...new Set(events.flatMap((event) => event.tags))];
  const parts = Math.max(1, Math.ceil(tags.length / maxTags));
  const at = now.toISOString();
  return Array.from({ length: parts }, (_, index) => {
    const partTags = tags.slice(index * maxTags, (index + 1) * maxTags);
    const inPart = new Set(partTags);
    const id = events.length === 1 && parts === 1 ? events[0]!.id : batchId(events, index);
    const changes = events
      .filter((event) => event.tags.some((tag) => inPart.has(tag)))
      .map(({ id: eventId, type, cmsDocId, cause, at: changedAt, tags: eventTags }) => ({ id: eventId, type, cmsDocId, cause, at: changedAt, tags: eventTags }));
    const payload = JSON.stringify({
      id,
      event: 'cache.purge',
      at,
      part: index + 1,
      parts,
      tags: partTags,
      surrogateKey: partTags.join(' '),
      cacheTag: partTags.join(','),
      changes,
    });
    return { id, payload };
  });
}

function batchId(events: readonly PurgeEvent[], part: number): string {
  const ids = events.map((event) => event.id).sort();
  return createHash('sha256').update(`${ids.join(',')}#${part}`).digest('base64url').slice(0, 24);
}
