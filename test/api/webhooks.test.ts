import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StorageAdapter, StorageSession, WebhookOutbox } from '../../src/storage/storage-adapter.js';
import { isoDate, keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { signatureIsValid, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { makeImage, uploaded } from '../helpers/media.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';

/**
 * Webhooks through real HTTP both ways: writes through the API, deliveries to a receiver the test
 * runs on loopback, the outbox in the test's store (SQLite, or PostgreSQL with `npm run test:postgres`).
 */

const secret = 'test-webhook-secret-0123456789';
const allEvents = ['insert', 'update', 'publish', 'unpublish', 'archive', 'restore', 'delete'];

/** Short delays, so that retries happen within a test. */
const fastEnv = {
  CMS_LIMIT_WEBHOOK_RETRY_DELAY: '150',
  CMS_LIMIT_WEBHOOK_POLL_INTERVAL: '100',
  CMS_LIMIT_WEBHOOK_TIMEOUT: '500',
};

function configWith(webhooks: unknown[]): Record<string, unknown> {
  return { ...testConfig(), webhooks };
}

/**
 * Waits until the outbox holds no pending delivery (each attempt recorded, so each request it
 * made has arrived), polling the admin endpoint, then checks nothing more came than `count`.
 */
interface PurgedChange {
  id: string;
  type: string;
  cmsDocId: string;
  cause: string;
  tags: string[];
}

/** The changes the purge requests told of, each once, in the order made, once `count` have come and the outbox settled. */
async function purgedChanges(t: TestApp, receiver: WebhookReceiver, count: number): Promise<PurgedChange[]> {
  const deadline = Date.now() + 10_000;
  const changes = () => [...new Map(receiver.received.flatMap((hook) => hook.payload.changes as PurgedChange[]).map((change) => [change.id, change])).values()];
  while (changes().length < count) {
    assert.ok(Date.now() < deadline, `${changes().length} purged changes arrived, not ${count}`);
    await sleep(20);
  }
  await outboxSettled(t);
  const told = changes();
  assert.equal(told.length, count);
  return told;
}

async function assertNothingMore(t: TestApp, receiver: WebhookReceiver, count: number): Promise<void> {
  await outboxSettled(t);
  assert.equal(receiver.received.length, count, `expected ${count} requests, got ${receiver.received.map((hook) => hook.payload.event).join(', ')}`);
}

/** Resolves once no endpoint has a pending delivery: every attempt made has been recorded. */
async function outboxSettled(t: TestApp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const endpoints: { deliveries: { pending: number } }[] = (await t.request('GET', '/api/v1/@cms/webhook')).body.results;
    if (endpoints.every((endpoint) => endpoint.deliveries.pending === 0)) return;
    assert.ok(Date.now() < deadline, `deliveries still pending after ${timeoutMs} ms`);
    await sleep(20);
  }
}

describe('webhooks', () => {
  describe('the seven events, signed', () => {
    let receiver: WebhookReceiver;
    let t: TestApp;
    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(configWith([{ name: 'articles', url: receiver.url, secret, types: ['article'] }]), fastEnv);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    it('tells the endpoint of each change of a type it names, once, in order, signed, with the document as changed', async () => {
      const started = Math.floor(Date.now() / 1000);
      const inserted = await t.request('POST', '/api/v1/article', { body: { title: 'Hello', category: 'news' } });
      assert.equal(inserted.status, 200);
      const docId: string = inserted.body.cmsDocId;
      const steps: [string, () => Promise<number>][] = [
        ['update', async () => (await t.request('PATCH', `/api/v1/article/${docId}`, { body: { title: 'Hello again' } })).status],
        ['unpublish', async () => (await t.request('POST', `/api/v1/article/${docId}/unpublish`)).status],
        ['publish', async () => (await t.request('POST', `/api/v1/article/${docId}/publish`)).status],
        ['archive', async () => (await t.request('PATCH', `/api/v1/article/${docId}`, { body: { archived: true } })).status],
        ['restore', async () => (await t.request('PATCH', `/api/v1/article/${docId}`, { body: { archived: false } })).status],
        ['delete', async () => (await t.request('DELETE', `/api/v1/article/${docId}:en:draft`)).status],
      ];
      for (const [event, step] of steps) assert.equal(await step(), 200, event);
      // A type the endpoint does not name.
      assert.equal((await t.request('POST', '/api/v1/note', { body: { title: 'Unheard' } })).status, 200);

      const hooks = await receiver.waitFor(7);
      await assertNothingMore(t, receiver, 7);
      assert.deepEqual(hooks.map((hook) => hook.payload.event), ['insert', 'update', 'unpublish', 'publish', 'archive', 'restore', 'delete']);
      for (const hook of hooks) {
        assert.ok(signatureIsValid(hook, secret), `${hook.payload.event}: the signature is valid`);
        assert.ok(!signatureIsValid(hook, `${secret}x`), 'and only for the secret');
        assert.equal(hook.headers['content-type'], 'application/json');
        assert.equal(hook.headers['cms-webhook-id'], hook.payload.id);
        assert.equal(hook.headers['cms-webhook-event'], hook.payload.event);
        const timestamp = Number(hook.headers['cms-webhook-timestamp']);
        assert.ok(timestamp >= started && timestamp <= Math.ceil(Date.now() / 1000), 'a current Unix time in seconds');
        assert.equal(hook.payload.type, 'article');
        assert.equal(hook.payload.cmsDocId, docId);
        assert.equal(hook.payload.locale, 'en');
        assert.match(hook.payload.at, isoDate);
        assert.deepEqual(hook.payload.by, { kind: 'apiKey', role: 'admin', userId: null });
        assert.ok(!hook.body.includes(keys.admin), 'never the key');
      }
      assert.equal(new Set(hooks.map((hook) => hook.payload.id)).size, 7, 'one id per event');
      const [insert, update, unpublish, publish, archive, restore, remove] = hooks.map((hook) => hook.payload);
      assert.equal(insert._id, `${docId}:en:published`);
      assert.equal(insert.mode, 'published');
      assert.deepEqual([insert.document.title, insert.document.category, insert.document._id], ['Hello', 'news', `${docId}:en:published`]);
      assert.equal(insert.document._url, `http://cms.test/articles/${insert.document.slug}`, 'the document as the API shows it');
      assert.equal(update.document.title, 'Hello again');
      assert.deepEqual([unpublish._id, unpublish.mode, unpublish.document.modified, unpublish.document.lastPublishedAt], [`${docId}:en:draft`, 'draft', true, null]);
      assert.deepEqual([publish._id, publish.document.title], [`${docId}:en:published`, 'Hello again']);
      assert.equal(archive.document.archived, true);
      assert.equal(restore.document.archived, false);
      assert.deepEqual([remove._id, remove.mode, remove.document], [`${docId}:en:draft`, 'draft', null]);
    });

    it('shows the endpoint and its deliveries to an admin, a page at a time', async () => {
      const endpoints = await t.request('GET', '/api/v1/@cms/webhook');
      assert.equal(endpoints.status, 200);
      assert.deepEqual(endpoints.body, {
        results: [{ name: 'articles', url: receiver.url, types: ['article'], events: allEvents, deliveries: { pending: 0, delivered: 7, failed: 0 } }],
      });
      assert.ok(!endpoints.text.includes(secret), 'never the secret');
      const first = await t.request('GET', '/api/v1/@cms/webhook/deliveries?perPage=4');
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.results.map((d: { event: string }) => d.event), ['delete', 'restore', 'archive', 'publish']);
      const [latest] = first.body.results;
      assert.deepEqual(Object.keys(latest).sort(), [
        'attempts', 'cmsDocId', 'createdAt', 'endpoint', 'event', 'eventId', 'id', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status', 'type', 'updatedAt',
      ]);
      assert.deepEqual([latest.status, latest.attempts, latest.lastStatusCode, latest.lastError, latest.nextAttemptAt], ['delivered', 1, 200, null, null]);
      assert.equal(latest.eventId, receiver.received[6]!.payload.id);
      assert.match(latest.updatedAt, isoDate);
      const second = await t.request('GET', `/api/v1/@cms/webhook/deliveries?perPage=4&before=${first.body.next}`);
      assert.deepEqual(second.body.results.map((d: { event: string }) => d.event), ['unpublish', 'update', 'insert']);
      assert.equal(second.body.next, null);
      assert.equal(second.body.nextCursor, null);
      assert.equal(first.body.nextCursor, String(first.body.next));
      const byCursor = await t.request('GET', `/api/v1/@cms/webhook/deliveries?perPage=4&cursor=${first.body.nextCursor}`);
      assert.deepEqual(byCursor.body, second.body, 'cursor walks as before does');
      const none = await t.request('GET', '/api/v1/@cms/webhook/deliveries?status=failed');
      assert.deepEqual(none.body, { results: [], next: null, nextCursor: null });
    });

    it('refuses everyone but admins, and hostile queries', async () => {
      const [delivered] = (await t.request('GET', '/api/v1/@cms/webhook/deliveries?perPage=1')).body.results;
      for (const key of ['editor', 'contributor', 'guest', null] as const) {
        assert.equal((await t.request('GET', '/api/v1/@cms/webhook', { key })).status, 403, `${key}`);
        assert.equal((await t.request('GET', '/api/v1/@cms/webhook/deliveries', { key })).status, 403, `${key}`);
        const retry = await t.request('POST', `/api/v1/@cms/webhook/deliveries/${delivered.id}/retry`, { key });
        assert.equal(retry.status, 403, `${key}`);
        assert.equal(retry.body.name, 'forbidden');
        assert.equal(retry.body.data.requiredRole, 'admin');
        // An anonymous caller is told how to send credentials, a known one which role it lacks.
        assert.match(retry.body.message, key === null ? /needs an API key or a sign-in/ : /needs the admin role or higher/);
      }
      for (const query of ['status=sent', 'perPage=0', 'perPage=101', 'before=-1', 'before=abc', 'status[]=failed', 'endpoint=', 'cursor=abc', 'cursor=1&before=1']) {
        const answer = await t.request('GET', `/api/v1/@cms/webhook/deliveries?${query}`);
        assert.equal(answer.status, 400, query);
        assert.equal(answer.body.name, 'invalid');
      }
      assert.equal((await t.request('POST', '/api/v1/@cms/webhook/deliveries/999999/retry')).status, 404);
      assert.equal((await t.request('POST', '/api/v1/@cms/webhook/deliveries/x1/retry')).status, 404);
      const notFailed = await t.request('POST', `/api/v1/@cms/webhook/deliveries/${delivered.id}/retry`);
      assert.equal(notFailed.status, 409);
    });

    it('enqueues nothing for a write that is refused', async () => {
      const before = receiver.received.length;
      const doc = (await t.request('POST', '/api/v1/article', { body: { title: 'Kept' } })).body;
      assert.equal((await t.request('POST', `/api/v1/article/${doc.cmsDocId}/localize`, { body: { toLocale: 'es' } })).status, 200);
      await receiver.waitFor(before + 2);
      assert.equal((await t.request('POST', '/api/v1/article', { body: { title: 'Bad', priority: 1000 } })).status, 400);
      assert.equal((await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}`, { body: { color: 'green' } })).status, 400);
      assert.equal((await t.request('POST', `/api/v1/article/${doc.cmsDocId}/localize`, { body: { toLocale: 'es' } })).status, 409);
      assert.equal((await t.request('DELETE', '/api/v1/article/nosuchdocument0000000000')).status, 404);
      // An editor may not archive the published version through the draft: refused after the draft was changed.
      assert.equal((await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}:en:draft`, { body: { archived: true }, key: 'contributor' })).status, 403);
      // Deleting the draft takes the published version with it, which a contributor may not: the
      // delete event is written first, then the transaction refused and rolled back with it.
      const refusedDelete = await t.request('DELETE', `/api/v1/article/${doc.cmsDocId}:en:draft`, { key: 'contributor' });
      assert.equal(refusedDelete.status, 403);
      assert.equal((await t.request('GET', `/api/v1/article/${doc.cmsDocId}`)).status, 200, 'nothing was deleted');
      await assertNothingMore(t, receiver, before + 2);
      assert.deepEqual(receiver.received.slice(before).map((hook) => [hook.payload.event, hook.payload.locale]), [['insert', 'en'], ['insert', 'es']]);
      const listed = await t.request('GET', '/api/v1/@cms/webhook');
      assert.equal(listed.body.results[0].deliveries.delivered, 9);
    });

    it('tells of a PATCH with _publish as the update, then the publish of the published version; a lock alone tells nothing', async () => {
      const before = receiver.received.length;
      const doc = (await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Draft only' } })).body;
      const draft = `/api/v1/article/${doc.cmsDocId}:en:draft`;
      assert.equal((await t.request('PATCH', draft, { body: { _advisoryLock: { tabId: 'tab', lock: true } } })).status, 200);
      const patched = await t.request('PATCH', draft, { body: { title: 'Published by patch', _publish: true } });
      assert.equal(patched.status, 200, patched.text);
      await receiver.waitFor(before + 3);
      await assertNothingMore(t, receiver, before + 3);
      const payloads = receiver.received.slice(before).map((hook) => hook.payload);
      assert.deepEqual(payloads.map((payload) => [payload.event, payload.mode]), [['insert', 'draft'], ['update', 'draft'], ['publish', 'published']]);
      assert.equal(payloads[2].document.title, 'Published by patch');
    });

    it('never carries a shared draft\'s key, nor a preview link\'s', async () => {
      const before = receiver.received.length;
      const doc = (await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Shared draft' } })).body;
      const draftUrl = `/api/v1/article/${doc._id}`;
      const shared = await t.request('POST', `${draftUrl}/share`, { body: { share: true } });
      const link = await t.request('POST', `${draftUrl}/share`, { body: { share: true, expiresIn: 600 } });
      assert.match(shared.body.cmsShareKey, /^[A-Za-z0-9_-]{43}$/);
      const patched = await t.request('PATCH', draftUrl, { body: { title: 'Shared draft, changed' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.cmsShareKey, shared.body.cmsShareKey, 'the editor still sees it');
      await receiver.waitFor(before + 2);
      await assertNothingMore(t, receiver, before + 2);
      const [insert, update] = receiver.received.slice(before);
      assert.deepEqual([insert!.payload.event, update!.payload.event], ['insert', 'update']);
      assert.equal(update!.payload.document.title, 'Shared draft, changed');
      assert.equal('cmsShareKey' in update!.payload.document, false);
      for (const key of [shared.body.cmsShareKey, link.body.cmsShareKey]) assert.ok(!update!.body.includes(key), 'no key in the body');
    });
  });

  describe('retries', () => {
    let receiver: WebhookReceiver;
    let refusing: string;
    let t: TestApp;
    before(async () => {
      receiver = await startReceiver(({ n }) => (n <= 2 ? 500 : 200));
      // A port nothing listens on any more: the connection is refused.
      const closed = await startReceiver();
      refusing = closed.url;
      await closed.close();
      t = await startTestApp(configWith([{ name: 'flaky', url: receiver.url, secret, types: ['article'] }]), fastEnv);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    it('tries again with growing pauses, and sends a document\'s later event only once the earlier one is through', async () => {
      const doc = (await t.request('POST', '/api/v1/article', { body: { title: 'Flaky' } })).body;
      assert.equal((await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}`, { body: { title: 'Flaky 2' } })).status, 200);
      const other = (await t.request('POST', '/api/v1/note', { body: { title: 'Not sent' } })).body;
      assert.ok(other.cmsDocId);
      const hooks = await receiver.waitFor(4);
      await assertNothingMore(t, receiver, 4);
      assert.deepEqual(hooks.map((hook) => [hook.payload.event, hook.answered]), [['insert', 500], ['insert', 500], ['insert', 200], ['update', 200]]);
      assert.equal(new Set(hooks.slice(0, 3).map((hook) => hook.headers['cms-webhook-id'])).size, 1, 'the same event each time');
      for (const hook of hooks) assert.ok(signatureIsValid(hook, secret));
      const [first, second, third] = hooks.map((hook) => hook.at);
      assert.ok(second! - first! >= 100, `a pause after the first failure (${second! - first!} ms)`);
      assert.ok(third! - second! > second! - first!, `a longer one after the second (${second! - first!} ms, then ${third! - second!} ms)`);
      const deliveries = (await t.request('GET', '/api/v1/@cms/webhook/deliveries')).body.results;
      assert.deepEqual(
        deliveries.map((d: Record<string, unknown>) => [d.event, d.status, d.attempts, d.lastStatusCode, d.lastError]),
        [['update', 'delivered', 1, 200, null], ['insert', 'delivered', 3, 200, null]],
      );
    });

    it('marks a delivery failed after its last attempt, and an admin retries it', async () => {
      const env = { ...fastEnv, CMS_LIMIT_WEBHOOK_ATTEMPTS: '2' };
      const failing = await startReceiver(() => 500);
      const config = configWith([
        { name: 'down', url: failing.url, secret, types: ['note'] },
        { name: 'refused', url: refusing, secret, types: ['note'] },
      ]);
      const app = await startTestApp(config, env);
      try {
        await app.request('POST', '/api/v1/note', { body: { title: 'Lost' } });
        let failed: Record<string, unknown>[] = [];
        for (let waited = 0; failed.length < 2 && waited < 5000; waited += 50) {
          await sleep(50);
          failed = (await app.request('GET', '/api/v1/@cms/webhook/deliveries?status=failed')).body.results;
        }
        const byEndpoint = Object.fromEntries(failed.map((d) => [d.endpoint, d]));
        assert.deepEqual([byEndpoint.down?.attempts, byEndpoint.down?.lastStatusCode, byEndpoint.down?.lastError], [2, 500, 'answered 500']);
        assert.deepEqual([byEndpoint.refused?.attempts, byEndpoint.refused?.lastStatusCode], [2, null]);
        assert.match(String(byEndpoint.refused?.lastError), /ECONNREFUSED/);
        assert.equal(failing.received.length, 2);
        const counts = (await app.request('GET', '/api/v1/@cms/webhook')).body.results;
        assert.deepEqual(counts.map((e: { deliveries: unknown }) => e.deliveries), [
          { pending: 0, delivered: 0, failed: 1 },
          { pending: 0, delivered: 0, failed: 1 },
        ]);

        failing.answer = () => 204;
        const retried = await app.request('POST', `/api/v1/@cms/webhook/deliveries/${byEndpoint.down!.id}/retry`);
        assert.equal(retried.status, 200);
        assert.deepEqual([retried.body.status, retried.body.attempts], ['pending', 0]);
        // The retry is in the audit trail; the refused ones (404, 409) are not.
        const trail = (await app.request('GET', '/api/v1/@cms/audit?action=webhook.retry')).body.results;
        assert.deepEqual(trail.map((record: { ids: string[] }) => record.ids), [[String(byEndpoint.down!.id)]]);
        const [, , again] = await failing.waitFor(3);
        assert.equal(again!.answered, 204);
        assert.equal(again!.payload.id, failing.received[0]!.payload.id);
        await outboxSettled(app);
        const [after] = (await app.request('GET', `/api/v1/@cms/webhook/deliveries?endpoint=down`)).body.results;
        assert.deepEqual([after.status, after.attempts, after.lastStatusCode], ['delivered', 1, 204]);
      } finally {
        await app.close();
        await failing.close();
      }
    });
  });

  it('sends cache.purge only to the endpoints that list it, each change once, with the CDN tags it invalidates', async () => {
    const receiver = await startReceiver();
    const changes = await startReceiver();
    const t = await startTestApp(
      configWith([
        { name: 'cdn', url: receiver.url, secret, types: ['article', '@cms/image'], events: ['cache.purge'] },
        { name: 'changes', url: changes.url, secret, types: ['article'] },
      ]),
      fastEnv,
    );
    try {
      const docId: string = (await t.request('POST', '/api/v1/article', { body: { title: 'Purged' } })).body.cmsDocId;
      assert.equal((await t.request('PATCH', `/api/v1/article/${docId}:en:draft`, { body: { title: 'Draft only' } })).status, 200);
      assert.equal((await t.request('POST', `/api/v1/article/${docId}:en:draft/publish`)).status, 200);
      assert.equal((await t.request('POST', '/api/v1/note', { body: { title: 'Not an article' } })).status, 200);
      // An image's draft save publishes it (autopublish): its published answers are purged too.
      const attachment = await uploaded(t, 'purged.png', await makeImage('png', 8, 8));
      const imageId: string = (await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Purged image', attachment } })).body.cmsDocId;
      assert.equal((await t.request('PATCH', `/api/v1/@cms/image/${imageId}:en:draft`, { body: { alt: 'Now described' } })).status, 200);
      const changed = await purgedChanges(t, receiver, 5);
      const all = ['article:draft', 'article:published', `doc:${docId}`];
      const tagsOf = (id: string) => changed.filter((change) => change.cmsDocId === id).map((change) => [change.cause, change.tags]);
      assert.deepEqual(tagsOf(docId), [['insert', all], ['update', ['article:draft']], ['publish', all]], 'a draft save names only the drafts: no shared answer shows them');
      const image = ['@cms/image:draft', '@cms/image:published', `doc:${imageId}`];
      assert.deepEqual(tagsOf(imageId), [['insert', image], ['update', image]], 'a draft save of an autopublishing type names its published tags');
      for (const hook of receiver.received) {
        assert.ok(signatureIsValid(hook, secret));
        assert.equal(hook.headers['cms-webhook-event'], 'cache.purge');
        assert.equal(hook.headers['cms-webhook-id'], hook.payload.id);
        assert.equal(hook.payload.event, 'cache.purge');
        assert.equal(hook.payload.surrogateKey, hook.payload.tags.join(' '));
        assert.equal(hook.payload.cacheTag, hook.payload.tags.join(','));
        assert.deepEqual(hook.payload.tags, [...new Set(hook.payload.changes.flatMap((change: PurgedChange) => change.tags))], 'a request names the tags of its changes once each');
      }
      await changes.waitFor(3);
      assert.ok(changes.received.every((hook) => hook.payload.event !== 'cache.purge'), 'an endpoint with the default events gets no purge');
      // The tags purged are those the answers carry: a document's own, a list's type and mode.
      const answer = await t.request('GET', `/api/v1/article/${docId}`, { key: null });
      assert.ok(String(answer.headers['surrogate-key']).split(' ').includes(`doc:${docId}`));
      const list = await t.request('GET', '/api/v1/article', { key: null });
      assert.ok(String(list.headers['surrogate-key']).split(' ').includes('article:published'));
    } finally {
      await t.close();
      await receiver.close();
      await changes.close();
    }
  });

  it('gathers the purges of a burst of writes into few requests, each within the endpoint\'s maxPurgeTags', async () => {
    const receiver = await startReceiver();
    const t = await startTestApp(configWith([{ name: 'cdn', url: receiver.url, secret, types: ['article'], events: ['cache.purge'], maxPurgeTags: 4 }]), {
      ...fastEnv,
      CMS_LIMIT_WEBHOOK_PURGE_INTERVAL: '1500',
    });
    try {
      const first: string = (await t.request('POST', '/api/v1/article', { body: { title: 'Sent at once' } })).body.cmsDocId;
      const [alone] = await receiver.waitFor(1);
      assert.deepEqual(alone!.payload.changes.map((change: PurgedChange) => change.cmsDocId), [first], 'the first purge goes at once');
      assert.equal(alone!.payload.id, alone!.payload.changes[0].id, 'a lone event keeps its id');
      assert.deepEqual([alone!.payload.part, alone!.payload.parts], [1, 1]);
      const burst: string[] = [];
      for (let n = 0; n < 6; n++) burst.push((await t.request('POST', '/api/v1/article', { body: { title: `Burst ${n}` } })).body.cmsDocId);
      const changed = await purgedChanges(t, receiver, 7);
      assert.deepEqual(changed.map((change) => change.cmsDocId), [first, ...burst]);
      const later = receiver.received.slice(1);
      // 6 documents' own tags and the two lists': 8 tags, 4 a request.
      assert.equal(later.length, 2, `the burst gathered into two requests, not ${later.length}`);
      assert.ok(later[0]!.at - alone!.at >= 1_400, 'the next purges waited out the interval');
      assert.deepEqual(later.map((hook) => [hook.payload.part, hook.payload.parts]), [[1, 2], [2, 2]]);
      assert.ok(later.every((hook) => hook.payload.tags.length <= 4));
      assert.deepEqual(later.flatMap((hook) => hook.payload.tags).sort(), ['article:draft', 'article:published', ...burst.map((id) => `doc:${id}`)].sort());
      assert.notEqual(later[0]!.payload.id, later[1]!.payload.id);
      for (const hook of receiver.received) assert.ok(signatureIsValid(hook, secret));
      const deliveries = (await t.request('GET', '/api/v1/@cms/webhook/deliveries?endpoint=cdn')).body.results;
      assert.deepEqual(deliveries.map((delivery: { status: string }) => delivery.status), Array(7).fill('delivered'), 'every event is marked delivered');
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('sends a gathered purge again when one of its requests fails, each event counted as attempted', async () => {
    const receiver = await startReceiver(({ n }) => (n === 2 ? 503 : 200));
    const t = await startTestApp(configWith([{ name: 'cdn', url: receiver.url, secret, types: ['article'], events: ['cache.purge'], maxPurgeTags: 2 }]), {
      ...fastEnv,
      CMS_LIMIT_WEBHOOK_PURGE_INTERVAL: '0',
    });
    try {
      const docId: string = (await t.request('POST', '/api/v1/article', { body: { title: 'Purged twice' } })).body.cmsDocId;
      // Three tags, two a request: one of the two requests fails, the event is tried again, both requests again.
      const hooks = await receiver.waitFor(4);
      const byPart = (pair: typeof hooks) => [...pair].sort((a, b) => a.payload.part - b.payload.part);
      const [first, again] = [byPart(hooks.slice(0, 2)), byPart(hooks.slice(2))];
      assert.deepEqual(hooks.map((hook) => hook.answered).sort(), [200, 200, 200, 503]);
      assert.ok(again.every((hook) => hook.answered === 200));
      for (const pair of [first, again]) assert.deepEqual(pair.map((hook) => hook.payload.tags), [['article:draft', 'article:published'], [`doc:${docId}`]]);
      assert.deepEqual(first.map((hook) => hook.payload.id), again.map((hook) => hook.payload.id), 'the same batch has the same ids on a retry');
      await outboxSettled(t);
      const [delivery] = (await t.request('GET', '/api/v1/@cms/webhook/deliveries?endpoint=cdn')).body.results;
      assert.deepEqual([delivery.status, delivery.attempts, delivery.lastStatusCode], ['delivered', 2, 200]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('writes nothing to the outbox for a change no endpoint is told of', async () => {
    const receiver = await startReceiver();
    let enqueued = 0;
    const counting = (outbox: WebhookOutbox): WebhookOutbox => ({
      ...outbox,
      enqueue: (deliveries, now) => {
        enqueued += deliveries.length;
        return outbox.enqueue(deliveries, now);
      },
    });
    const wrap = (adapter: StorageAdapter): StorageAdapter => ({
      ...adapter,
      transaction: withOptionalOptions((options, work) => adapter.transaction(options, (tx: StorageSession) => work({ ...tx, webhooks: counting(tx.webhooks) }))),
    });
    const config = configWith([{ url: receiver.url, secret, types: ['article'], events: ['publish'] }]);
    const t = await startTestApp(config, fastEnv, { wrapStorage: wrap });
    try {
      const doc = (await t.request('POST', '/api/v1/article', { body: { title: 'Quiet' }, headers: {} })).body;
      await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}`, { body: { title: 'Still quiet' } });
      await t.request('POST', '/api/v1/note', { body: { title: 'Other type' } });
      assert.equal(enqueued, 0);
      await t.request('POST', `/api/v1/article/${doc.cmsDocId}/publish`);
      assert.equal(enqueued, 1);
      const [hook] = await receiver.waitFor(1);
      assert.equal(hook!.payload.event, 'publish');
      await assertNothingMore(t, receiver, 1);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('delivers after a restart what a stopped process left unsent', async () => {
    const receiver = await startReceiver(() => 'hang');
    const config = configWith([{ name: 'kept', url: receiver.url, secret, types: ['article'] }]);
    const first = await startTestApp(config, fastEnv);
    let second: TestApp | undefined;
    try {
      const doc = (await first.request('POST', '/api/v1/article', { body: { title: 'Survives' } })).body;
      // The process goes away in the middle of its attempt, which it leased: nothing was recorded.
      await receiver.waitFor(1);
      const leased = Date.now();
      await first.app.close();
      receiver.answer = () => 200;
      second = await startTestApp(config, { ...fastEnv, CMS_DATABASE_URL: first.databaseUrl });
      const started = Date.now();
      let delivered;
      while (!delivered && Date.now() - started < 10_000) {
        await sleep(50);
        delivered = receiver.received.find((hook) => hook.answered === 200);
      }
      assert.ok(delivered, 'the second process sent the event');
      // The lease (twice the 500 ms timeout, plus a second) had to run out first.
      assert.ok(delivered.at - leased >= 1500, `sent ${delivered.at - leased} ms after the first process stopped`);
      assert.equal(delivered.payload.event, 'insert');
      assert.equal(delivered.payload.cmsDocId, doc.cmsDocId);
      assert.ok(signatureIsValid(delivered, secret));
      assert.ok(receiver.received.every((hook) => hook.payload.id === delivered.payload.id), 'only that event, maybe sent twice: at least once');
      await outboxSettled(second);
      const [row] = (await second.request('GET', '/api/v1/@cms/webhook/deliveries')).body.results;
      assert.deepEqual([row.status, row.lastStatusCode], ['delivered', 200]);
    } finally {
      await second?.close();
      await first.close();
      await receiver.close();
    }
  });
});
