import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewWebhookDelivery, StorageAdapter } from '../../src/storage/storage-adapter.js';

// A time in the future of today, so that real clocks play no part.
const t0 = Date.UTC(2030, 0, 1);
const lease = 10_000;

function delivery(eventId: string, docId: string, endpoint = 'hook', event = 'update'): NewWebhookDelivery {
  return { eventId, endpoint, docId, event, type: 'article', payload: JSON.stringify({ id: eventId }) };
}

/** What the webhook dispatcher relies on: an outbox leased atomically, in order per document and endpoint. */
export function describeWebhookOutboxContract(adapterOf: () => StorageAdapter): void {
  describe('webhook outbox', () => {
    const claim = (token: string, now = t0, endpoints = ['hook'], limit = 10) =>
      adapterOf().webhooks.claim({ endpoints, events: ['update'], now, leaseMs: lease, token, limit });
    const record = (id: number, token: string, status: 'pending' | 'delivered' | 'failed', now = t0, nextAttemptAt = now) =>
      adapterOf().webhooks.record({ id, token, status, statusCode: status === 'delivered' ? 200 : 500, error: status === 'delivered' ? null : 'answered 500', nextAttemptAt, now });

    it('keeps a delivery as enqueued, pending and due at once', async () => {
      await adapterOf().webhooks.enqueue([delivery('e1', 'a')], t0);
      const [kept] = await adapterOf().webhooks.list({ limit: 10 });
      assert.deepEqual(kept, {
        ...delivery('e1', 'a'),
        id: kept!.id,
        status: 'pending',
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        nextAttemptAt: t0,
        createdAt: t0,
        updatedAt: t0,
      });
    });

    it('leases one event per document and endpoint at a time, oldest first, and each to one claimer', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue([delivery('a1', 'a'), delivery('b1', 'b'), delivery('a2', 'a'), delivery('a1', 'a', 'other')], t0);
      const first = await claim('one');
      assert.deepEqual(first.map((d) => d.eventId), ['a1', 'b1'], 'a2 waits for a1; other endpoints are not asked for');
      assert.deepEqual(await claim('two'), [], 'leased rows are nobody else\'s, and a2 still waits');
      assert.equal(await record(first[0]!.id, 'one', 'delivered'), true);
      assert.deepEqual((await claim('two')).map((d) => d.eventId), ['a2'], 'a1 delivered: a2 is due');
      assert.deepEqual((await claim('three', t0, ['other'])).map((d) => d.eventId), ['a1']);
    });

    it('leases only the events asked for; unordered ones wait for earlier events of others, not of their own', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue([delivery('a1', 'a', 'hook', 'purge'), delivery('a2', 'a', 'hook', 'purge'), delivery('a3', 'a'), delivery('a4', 'a', 'hook', 'purge')], t0);
      const purges = (token: string) => outbox.claim({ endpoints: ['hook'], events: ['purge'], unordered: true, now: t0, leaseMs: lease, token, limit: 10 });
      assert.deepEqual((await purges('one')).map((d) => d.eventId), ['a1', 'a2'], 'a4 waits behind a3, of another event');
      assert.deepEqual(await claim('two'), [], 'a3 waits behind the purges: the order across events holds');
      const ordered = await outbox.claim({ endpoints: ['hook'], events: ['purge'], now: t0 + lease, leaseMs: lease, token: 'three', limit: 10 });
      assert.deepEqual(ordered.map((d) => d.eventId), ['a1'], 'without unordered, one event per document at a time');
    });

    it('keeps a document\'s later event back while an earlier one waits for its retry', async () => {
      await adapterOf().webhooks.enqueue([delivery('a1', 'a'), delivery('a2', 'a')], t0);
      const [a1] = await claim('one');
      assert.equal(await record(a1!.id, 'one', 'pending', t0 + 1, t0 + 5_000), true);
      assert.deepEqual(await claim('two', t0 + 10), [], 'a1 is not due yet, a2 waits behind it');
      const [again] = await claim('three', t0 + 5_000);
      assert.equal(again!.eventId, 'a1');
      assert.equal(again!.attempts, 1);
      assert.equal(again!.lastStatusCode, 500);
      // A failed event no longer holds the later ones back.
      assert.equal(await record(again!.id, 'three', 'failed', t0 + 5_001), true);
      assert.deepEqual((await claim('four', t0 + 5_002)).map((d) => d.eventId), ['a2']);
    });

    it('gives an expired lease to the next claimer and refuses the first one\'s record', async () => {
      await adapterOf().webhooks.enqueue([delivery('a1', 'a')], t0);
      const [first] = await claim('crashed');
      assert.deepEqual(await claim('other', t0 + lease - 1), []);
      const [second] = await claim('other', t0 + lease);
      assert.equal(second!.id, first!.id);
      assert.equal(await record(first!.id, 'crashed', 'delivered'), false, 'the lease is no longer the crashed claimer\'s');
      assert.equal(await record(second!.id, 'other', 'delivered', t0 + lease), true);
      const [kept] = await adapterOf().webhooks.list({ limit: 1 });
      assert.equal(kept!.status, 'delivered');
      assert.equal(kept!.attempts, 1);
    });

    it('lets only concurrent claims take each row once', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue(Array.from({ length: 20 }, (_, i) => delivery(`e${i}`, `d${i}`)), t0);
      const claims = await Promise.all(Array.from({ length: 4 }, (_, i) => claim(`c${i}`, t0, ['hook'], 20)));
      const ids = claims.flat().map((d) => d.id);
      assert.equal(ids.length, 20);
      assert.equal(new Set(ids).size, 20);
    });

    it('lists newest first with filters and a cursor, counts by endpoint and status', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue([delivery('e1', 'a'), delivery('e2', 'b'), delivery('e3', 'c', 'other')], t0);
      const all = await outbox.list({ limit: 10 });
      assert.deepEqual(all.map((d) => d.eventId), ['e3', 'e2', 'e1']);
      assert.deepEqual((await outbox.list({ limit: 10, beforeId: all[0]!.id })).map((d) => d.eventId), ['e2', 'e1']);
      assert.deepEqual((await outbox.list({ limit: 10, endpoint: 'other' })).map((d) => d.eventId), ['e3']);
      const [e1] = await claim('one', t0, ['hook'], 1);
      await record(e1!.id, 'one', 'failed');
      assert.deepEqual((await outbox.list({ limit: 10, status: 'failed' })).map((d) => d.eventId), ['e1']);
      assert.deepEqual(await outbox.counts(), [
        { endpoint: 'hook', status: 'failed', count: 1 },
        { endpoint: 'hook', status: 'pending', count: 1 },
        { endpoint: 'other', status: 'pending', count: 1 },
      ]);
    });

    it('retries only a failed delivery, from its first attempt', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue([delivery('e1', 'a')], t0);
      const [e1] = await claim('one');
      assert.equal(await outbox.retry(e1!.id, t0), false, 'pending');
      await record(e1!.id, 'one', 'failed');
      assert.equal(await outbox.retry(e1!.id, t0 + 100), true);
      assert.equal(await outbox.retry(e1!.id + 1000, t0 + 100), false, 'missing');
      const [again] = await claim('two', t0 + 100);
      assert.equal(again!.attempts, 0);
      assert.equal(again!.status, 'pending');
    });

    it('prunes finished deliveries last changed before a time, never pending ones', async () => {
      const outbox = adapterOf().webhooks;
      await outbox.enqueue([delivery('e1', 'a'), delivery('e2', 'b'), delivery('e3', 'c')], t0);
      const [e1, e2] = await claim('one', t0, ['hook'], 2);
      await record(e1!.id, 'one', 'delivered', t0 + 10);
      await record(e2!.id, 'one', 'failed', t0 + 20);
      assert.equal(await outbox.prune(t0 + 15, 100), 1);
      assert.equal(await outbox.prune(t0 + 1_000_000, 100), 1);
      assert.deepEqual((await outbox.list({ limit: 10 })).map((d) => d.eventId), ['e3']);
    });

    it('writes nothing when the transaction that enqueued rolls back', async () => {
      await assert.rejects(
        adapterOf().transaction(async (tx) => {
          await tx.webhooks.enqueue([delivery('e1', 'a')], t0);
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.deepEqual(await adapterOf().webhooks.list({ limit: 10 }), []);
    });
  });
}
