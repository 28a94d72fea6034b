import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiTestsOnPostgres, isoDate, startTestApp, testConfig, type TestApp, signedInUser } from '../helpers/test-app.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { sendRequest, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { runCli } from '../helpers/cli-store.js';
import { newSchemaDatabase } from '../helpers/postgres.js';

/*
 * Scheduled publishing (issue 25) through real HTTP, on the test's store (SQLite, or PostgreSQL
 * with CMS_TEST_API_DATABASE=postgres): the schedule route, the draft's `scheduledPublish` and
 * `scheduledUnpublish`, the list filter, and the scheduler running them at the time, once,
 * across two server processes and after a restart that missed the time.
 */

const secret = 'test-webhook-secret-0123456789';
/** A scheduler that looks often, so a schedule ~1 s ahead runs within the test. */
const fastScheduler = { CMS_LIMIT_SCHEDULER_INTERVAL: '100', CMS_LIMIT_WEBHOOK_POLL_INTERVAL: '100' };

/** A moment `ms` from now, as the route takes it. */
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/** Polls `read` until `done` holds of its answer, or fails after `timeoutMs`. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`never came: ${JSON.stringify(value).slice(0, 500)}`);
    await sleep(50);
  }
}

describe('scheduled publishing: POST :_id/schedule and the scheduler', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
    const config = { ...testConfig(), webhooks: [{ url: receiver.url, secret, types: ['article'], events: ['publish', 'unpublish'] }] };
    t = await startTestApp(config, fastScheduler);
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** A new article, never published: its draft's id. */
  async function draftOf(title: string, body: Record<string, unknown> = {}): Promise<{ docId: string; draftId: string }> {
    const res = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title, ...body } });
    assert.equal(res.status, 200, res.text);
    return { docId: res.body.cmsDocId, draftId: `${res.body.cmsDocId}:en:draft` };
  }

  const schedule = (draftId: string, body: unknown, options: { key?: 'admin' | 'editor' | 'contributor' | 'guest' | null; headers?: Record<string, string> } = {}) =>
    t.request('POST', `/api/v1/article/${draftId}/schedule`, { body, ...options });
  const read = (id: string) => t.request('GET', `/api/v1/article/${id}`);
  const published = (docId: string) => read(`${docId}:en:published`);

  it('refuses what is no schedule (400) and changes nothing', async () => {
    const { draftId } = await draftOf('Refused');
    const before = await read(draftId);
    const refusals: unknown[] = [
      {},
      { publishAt: 'tomorrow' },
      { publishAt: '2030-01-31' },
      { publishAt: '2030-01-31T09:00:00' },
      { publishAt: '2030-02-31T09:00:00Z' },
      { publishAt: 1893456000000 },
      { publishAt: true },
      { publishAt: ['2030-01-31T09:00:00Z'] },
      { publishAt: { $gt: '' } },
      { publishAt: '2001-01-01T00:00:00Z' },
      { unpublishAt: new Date(Date.now() - 3_600_000).toISOString() },
      { publishAt: '2030-01-31T09:00:00Z', other: 1 },
      JSON.parse('{"__proto__": {"publishAt": "2030-01-31T09:00:00Z"}}'),
      { publishAt: '2030-01-31T09:00:00Z', unpublishAt: '2030-01-31T09:00:00Z' },
      { publishAt: '2030-01-31T09:00:00Z', unpublishAt: '2030-01-30T09:00:00Z' },
    ];
    for (const body of refusals) {
      const res = await schedule(draftId, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.equal(typeof res.body.message, 'string');
    }
    // A body that is no object at all.
    assert.equal((await t.request('POST', `/api/v1/article/${draftId}/schedule`, { payload: '[]', headers: { 'content-type': 'application/json' } })).status, 400);
    // An unpublish before a pending publish is refused too, the other way round.
    assert.equal((await schedule(draftId, { publishAt: '2030-01-31T09:00:00Z' })).status, 200);
    const early = await schedule(draftId, { unpublishAt: '2030-01-01T09:00:00Z' });
    assert.equal(early.status, 400, early.text);
    assert.equal((await schedule(draftId, { publishAt: null })).status, 200);
    const after = await read(draftId);
    assert.equal(after.body.scheduledPublish, undefined);
    assert.equal(after.body.scheduledUnpublish, undefined);
    assert.equal(after.body.updatedAt, before.body.updatedAt);
    // Types without drafts, and unknown documents.
    const user = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Plain', username: 'plain', password: 'plain-password-123', role: 'guest' } });
    assert.equal((await t.request('POST', `/api/v1/@cms/user/${user.body._id}/schedule`, { body: { publishAt: inMs(60_000) } })).status, 400);
    assert.equal((await schedule('nosuchdocument0000000000:en:draft', { publishAt: inMs(60_000) })).status, 404);
  });

  it('needs publish permission: a contributor, a guest and an anonymous caller are refused, nothing is scheduled', async () => {
    const { draftId } = await draftOf('Not yours');
    for (const key of ['contributor', 'guest'] as const) {
      const res = await schedule(draftId, { publishAt: inMs(60_000) }, { key });
      assert.equal(res.status, 403, `${key}: ${res.text}`);
      assert.equal(res.body.name, 'forbidden');
    }
    const anonymous = await schedule(draftId, { publishAt: inMs(60_000) }, { key: null });
    assert.ok(anonymous.status === 401 || anonymous.status === 403 || anonymous.status === 404, anonymous.text);
    assert.equal((await read(draftId)).body.scheduledPublish, undefined);
    // An editor may.
    const editor = await schedule(draftId, { publishAt: inMs(60_000) }, { key: 'editor' });
    assert.equal(editor.status, 200, editor.text);
    assert.equal(editor.body.scheduledPublish.status, 'pending');
    assert.equal((await schedule(draftId, { publishAt: null }, { key: 'editor' })).status, 200);
  });

  it('shows the schedule on the draft, with who scheduled it; a list finds it with scheduled=…; null cancels it', async () => {
    const { docId, draftId } = await draftOf('Later');
    const { headers } = await signedInUser(t, 'scheduler', 'editor');
    const publishAt = '2031-05-01T10:00:00.000Z';
    const unpublishAt = '2031-06-01T10:00:00+02:00';
    const res = await schedule(draftId, { publishAt, unpublishAt }, { key: null, headers });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, draftId);
    const by = { _id: res.body.scheduledPublish.by._id, title: 'scheduler Person', username: 'scheduler' };
    assert.deepEqual(res.body.scheduledPublish, { at: publishAt, by, status: 'pending' });
    assert.deepEqual(res.body.scheduledUnpublish, { at: '2031-06-01T08:00:00.000Z', by, status: 'pending' });
    assert.match(by._id, /^[a-z0-9]+$/);
    // Every read of the draft shows it; saves keep it, and no body sets it.
    const draft = await read(draftId);
    assert.deepEqual(draft.body.scheduledPublish, res.body.scheduledPublish);
    const forged = { at: '2031-01-01T00:00:00.000Z', by, status: 'failed', reason: 'forged' };
    const put = await t.request('PUT', `/api/v1/article/${draftId}`, { body: { title: 'Later', scheduledPublish: forged, scheduledUnpublish: null } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.scheduledPublish, res.body.scheduledPublish);
    assert.deepEqual(put.body.scheduledUnpublish, res.body.scheduledUnpublish);
    const patched = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { category: 'x', scheduledPublish: forged } });
    assert.deepEqual(patched.body.scheduledPublish, res.body.scheduledPublish);
    const listed = await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=true');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.results.map((doc: { _id: string }) => doc._id), [draftId]);
    assert.deepEqual(listed.body.results[0].scheduledPublish, res.body.scheduledPublish);
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=pending&count=1')).body.count, 1);
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=failed')).body.results.length, 0);
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=maybe')).status, 400);
    // Schedules are the drafts': callers without draft access may not select by them.
    assert.equal((await t.request('GET', '/api/v1/article?scheduled=true', { key: null })).status, 403);
    // Another locale's draft has none.
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&cmsLocale=es&scheduled=true')).body.results.length, 0);

    // Cancelling one leaves the other.
    const cancelled = await schedule(draftId, { publishAt: null });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.scheduledPublish, undefined);
    assert.equal(cancelled.body.scheduledUnpublish.status, 'pending');
    assert.equal((await schedule(draftId, { unpublishAt: null })).body.scheduledUnpublish, undefined);
    // Each request that changed a schedule has its audit record, by who sent it; a cancel of nothing has none.
    assert.equal((await schedule(draftId, { publishAt: null, unpublishAt: null })).status, 200);
    const trail = async (action: string) => {
      const answer = await t.request('GET', `/api/v1/@cms/audit?action=${action}&type=article`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body.results
        .filter((record: { ids: string[] }) => record.ids.includes(docId))
        .map(({ ids, detail, actor }: any) => ({ ids, detail, actor: actor.username ?? actor.kind }));
    };
    const ids = [docId, draftId];
    assert.deepEqual(await trail('document.schedule'), [
      { ids, detail: { locale: 'en', mode: 'draft', publishAt, unpublishAt: '2031-06-01T08:00:00.000Z' }, actor: 'scheduler' },
    ]);
    assert.deepEqual(await trail('document.unschedule'), [
      { ids, detail: { locale: 'en', mode: 'draft', unpublishAt: null }, actor: 'apiKey' },
      { ids, detail: { locale: 'en', mode: 'draft', publishAt: null }, actor: 'apiKey' },
    ]);
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=true')).body.results.length, 0);
    assert.equal((await published(docId)).status, 404, 'nothing was published');
  });

  it('publishes what the draft holds at the time, as the one who scheduled it, firing the publish webhook', async () => {
    const { docId, draftId } = await draftOf('Soon', { category: 'first' });
    const { headers, id } = await signedInUser(t, 'timer', 'editor');
    const hooksBefore = receiver.received.length;
    const res = await schedule(draftId, { publishAt: inMs(1_200) }, { key: null, headers });
    assert.equal(res.status, 200, res.text);
    // A change made before the time is what gets published.
    assert.equal((await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { category: 'second' } })).status, 200);
    assert.equal((await published(docId)).status, 404, 'not before its time');
    const live = await eventually(() => published(docId), (r) => r.status === 200);
    assert.equal(live.body.category, 'second');
    assert.deepEqual(live.body.updatedBy, { _id: id, title: 'timer Person', username: 'timer' });
    const draft = await read(draftId);
    assert.equal(draft.body.scheduledPublish, undefined, 'a schedule that ran is gone');
    assert.equal(draft.body.modified, false);
    const scheduled = await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=true');
    assert.ok(!scheduled.body.results.some((doc: { _id: string }) => doc._id === draftId));
    const hooks = (await receiver.waitFor(hooksBefore + 1)).slice(hooksBefore);
    assert.deepEqual(hooks.map((hook) => [hook.payload.event, hook.payload.cmsDocId]), [['publish', docId]]);
    assert.deepEqual(hooks[0]!.payload.by, { kind: 'user', role: 'editor', userId: id });
    assert.match(hooks[0]!.payload.at, isoDate);
    // The run leaves a history entry and an audit record, as a publish by hand does, by that user.
    const history = await t.request('GET', `/api/v1/article/${draftId}/history`);
    assert.equal(history.status, 200, history.text);
    const entry = history.body.results.find((each: { action: string; cmsMode: string }) => each.action === 'publish' && each.cmsMode === 'published');
    assert.deepEqual(entry?.updatedBy, { _id: id, title: 'timer Person', username: 'timer' });
    // Its record says that a schedule ran it, when it was due and who set it.
    const trail = await t.request('GET', `/api/v1/@cms/audit?action=document.publish&actor=${id}`);
    assert.equal(trail.status, 200, trail.text);
    const run = trail.body.results.find((record: { ids: string[] }) => record.ids.includes(docId));
    assert.deepEqual(run?.detail, {
      locale: 'en',
      mode: 'published',
      schedule: { at: res.body.scheduledPublish.at, by: { kind: 'user', _id: id, username: 'timer', title: 'timer Person' } },
    });
    assert.deepEqual([run.address, run.requestId], [null, null], 'no request made it');
    const set = await t.request('GET', `/api/v1/@cms/audit?action=document.schedule&actor=${id}`);
    assert.deepEqual(set.body.results.map((record: any) => [record.ids, record.detail]), [[[docId, draftId], { locale: 'en', mode: 'draft', publishAt: res.body.scheduledPublish.at }]]);
  });

  it('unpublishes at the time; publish and unpublish of one draft each run once', async () => {
    const { docId, draftId } = await draftOf('Brief');
    const res = await schedule(draftId, { publishAt: inMs(600), unpublishAt: inMs(1_800) });
    assert.equal(res.status, 200, res.text);
    await eventually(() => published(docId), (r) => r.status === 200);
    const draft = await read(draftId);
    assert.equal(draft.body.scheduledPublish, undefined);
    assert.equal(draft.body.scheduledUnpublish.status, 'pending');
    await eventually(() => published(docId), (r) => r.status === 404);
    const after = await read(draftId);
    assert.equal(after.body.scheduledUnpublish, undefined);
    assert.equal(after.body.lastPublishedAt, null);
    await sleep(400);
    const events = receiver.received.filter((hook) => hook.payload.cmsDocId === docId).map((hook) => hook.payload.event);
    assert.deepEqual(events, ['publish', 'unpublish']);
  });

  it('a cancelled schedule never runs', async () => {
    const { docId, draftId } = await draftOf('Called off');
    assert.equal((await schedule(draftId, { publishAt: inMs(500) })).status, 200);
    assert.equal((await schedule(draftId, { publishAt: null })).status, 200);
    await sleep(1_000);
    assert.equal((await published(docId)).status, 404);
  });

  it('keeps a refused schedule marked failed with the reason, on the draft and in lists, and does not try it again', async () => {
    // Its user lost the right to publish: the operation refuses (403) at the time.
    const { docId, draftId } = await draftOf('Demoted');
    const { headers, id } = await signedInUser(t, 'demoted', 'editor');
    assert.equal((await schedule(draftId, { publishAt: inMs(700) }, { key: null, headers })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/@cms/user/${id}`, { body: { role: 'contributor' } })).status, 200);
    const failed = await eventually(() => read(draftId), (r) => r.body.scheduledPublish?.status === 'failed');
    assert.equal(failed.body.scheduledPublish.reason, 'demoted may no longer publish article');
    assert.equal(failed.body.scheduledPublish.by.username, 'demoted');
    assert.equal((await published(docId)).status, 404);
    const listed = await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=failed');
    assert.ok(listed.body.results.some((doc: { _id: string }) => doc._id === draftId));
    assert.ok(!(await t.request('GET', '/api/v1/article?cmsMode=draft&scheduled=pending')).body.results.some((doc: { _id: string }) => doc._id === draftId));
    // An unpublish of what is not published at the time fails too.
    const never = await draftOf('Never published');
    assert.equal((await schedule(never.draftId, { unpublishAt: inMs(500) })).status, 200);
    const notPublished = await eventually(() => read(never.draftId), (r) => r.body.scheduledUnpublish?.status === 'failed');
    assert.equal(notPublished.body.scheduledUnpublish.reason, 'The document was not published at the time');
    // Not tried again: it stays failed with the same reason.
    await sleep(500);
    assert.deepEqual((await read(draftId)).body.scheduledPublish, failed.body.scheduledPublish);
    // Scheduling again makes it pending; cancelling removes it.
    const again = await schedule(draftId, { publishAt: inMs(60_000) });
    assert.equal(again.body.scheduledPublish.status, 'pending');
    assert.equal(again.body.scheduledPublish.reason, undefined);
    assert.equal((await schedule(draftId, { publishAt: null })).body.scheduledPublish, undefined);
  });

  it('deleting a draft takes its schedules: a localize that makes it again has none, and the old time passes without a publish', async () => {
    const { docId, draftId } = await draftOf('Gone in Spanish');
    const esDraft = `${docId}:es:draft`;
    const localize = () => t.request('POST', `/api/v1/article/${draftId}/localize`, { body: { toLocale: 'es' } });
    assert.equal((await localize()).status, 200);
    const oldTime = inMs(900);
    assert.equal((await schedule(esDraft, { publishAt: oldTime })).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/article/${esDraft}`)).status, 200);
    const again = await localize();
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body._id, esDraft);
    assert.equal(again.body.scheduledPublish, undefined);
    const listed = await t.request('GET', '/api/v1/article?cmsMode=draft&cmsLocale=es&scheduled=any');
    assert.ok(!listed.body.results.some((doc: { _id: string }) => doc._id === esDraft), 'no schedule of it left');
    // One due just after the old time runs after it would have (earliest first): once it ran, the old one never will.
    const later = await draftOf('Due just after');
    assert.equal((await schedule(later.draftId, { publishAt: new Date(Date.parse(oldTime) + 100).toISOString() })).status, 200);
    await eventually(() => published(later.docId), (r) => r.status === 200);
    assert.equal((await read(`${docId}:es:published`)).status, 404);
  });

  it('fails a publish when someone who may not publish changed the draft since; a publisher changing it after them keeps it', async () => {
    const unreviewed = await draftOf('Unreviewed', { category: 'approved' });
    const reviewed = await draftOf('Reviewed again', { category: 'approved' });
    const at = inMs(1_200);
    for (const { draftId } of [unreviewed, reviewed]) assert.equal((await schedule(draftId, { publishAt: at }, { key: 'editor' })).status, 200);
    const patch = (draftId: string, category: string, key: 'contributor' | 'editor') => t.request('PATCH', `/api/v1/article/${draftId}`, { body: { category }, key });
    const changed = await patch(unreviewed.draftId, 'not approved', 'contributor');
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.scheduledPublish.status, 'pending');
    assert.equal((await patch(reviewed.draftId, 'not approved', 'contributor')).status, 200);
    assert.equal((await patch(reviewed.draftId, 'approved again', 'editor')).status, 200);
    const failed = await eventually(() => read(unreviewed.draftId), (r) => r.body.scheduledPublish?.status === 'failed');
    assert.equal(
      failed.body.scheduledPublish.reason,
      `An API key (contributor) changed the draft at ${changed.body.updatedAt}, after it was scheduled, and may not publish article: review it and schedule it again`,
    );
    assert.equal((await published(unreviewed.docId)).status, 404);
    const live = await eventually(() => published(reviewed.docId), (r) => r.status === 200);
    assert.equal(live.body.category, 'approved again');
    // Scheduling it again is a publisher's review: it runs.
    assert.equal((await schedule(unreviewed.draftId, { publishAt: inMs(300) }, { key: 'editor' })).body.scheduledPublish.status, 'pending');
    assert.equal((await eventually(() => published(unreviewed.docId), (r) => r.status === 200)).body.category, 'not approved');
  });

  it('fails the schedule of a user who is gone', async () => {
    const { docId, draftId } = await draftOf('Orphan');
    const { headers, id } = await signedInUser(t, 'leaver', 'admin');
    assert.equal((await schedule(draftId, { publishAt: inMs(800) }, { key: null, headers })).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/@cms/user/${id}`)).status, 200);
    const failed = await eventually(() => read(draftId), (r) => r.body.scheduledPublish?.status === 'failed');
    assert.equal(failed.body.scheduledPublish.reason, 'The user who scheduled it (leaver) no longer exists or is disabled');
    assert.equal((await published(docId)).status, 404);
  });
});

/** The configuration file the server processes read: a fast scheduler, webhooks to `receiverUrl`. */
function processConfig(receiverUrl: string, adminKey: string, otherKeys: Record<string, { role: string }> = {}) {
  return {
    baseUrl: 'http://127.0.0.1',
    locales: { en: { label: 'English' } },
    apiKeys: { [adminKey]: { role: 'admin' }, ...otherKeys },
    webhooks: [{ url: receiverUrl, secret, types: ['article'], events: ['publish'] }],
    limits: { schedulerInterval: 20, webhookPollInterval: 50 },
    modules: { article: { extend: '@cms/piece-type', options: { label: 'Article' }, fields: { add: { hits: { type: 'integer' } } } } },
  };
}

describe('scheduled publishing across server processes on one store', () => {
  const adminKey = 'schedule-admin-key-0123456789';
  const admin = { authorization: `ApiKey ${adminKey}` };
  // Keys the configuration holds at first, and loses or lowers later.
  const removedKey = 'schedule-removed-key-0123456789';
  const loweredKey = 'schedule-lowered-key-0123456789';
  let receiver: WebhookReceiver;
  let configDir: string;
  let configPath: string;
  let env: Record<string, string>;
  let dropStore: () => Promise<void>;
  const running: ServerProcess[] = [];

  before(async () => {
    receiver = await startReceiver();
    configDir = await mkdtemp(join(tmpdir(), 'cms-schedule-'));
    configPath = join(configDir, 'cms.config.json');
    const editors = { [removedKey]: { role: 'editor' }, [loweredKey]: { role: 'editor' } };
    await writeFile(configPath, JSON.stringify(processConfig(receiver.url, adminKey, editors)));
    if (apiTestsOnPostgres) {
      const database = await newSchemaDatabase();
      env = { CMS_CONFIG: configPath, CMS_DATABASE_URL: database.url };
      dropStore = () => database.drop();
    } else {
      env = { CMS_CONFIG: configPath, CMS_DATA_DIR: configDir };
      dropStore = async () => undefined;
    }
  });
  after(async () => {
    await Promise.all(running.map((server) => server.stop()));
    await receiver?.close();
    await dropStore?.();
    await rm(configDir, { recursive: true, force: true });
  });

  async function start(): Promise<ServerProcess> {
    const server = await startServerProcess({ env });
    running.push(server);
    for (let i = 0; i < 100; i++) {
      if ((await sendRequest(server.port, 'GET', '/health', undefined, {})).status === 200) return server;
      await sleep(50);
    }
    assert.fail(`never healthy:\n${server.output()}`);
  }

  async function ok(server: ServerProcess, method: string, path: string, body?: unknown): Promise<any> {
    const res = await sendRequest(server.port, method, path, body, admin);
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    return res.body;
  }

  const publishHooksOf = (docId: string) => receiver.received.filter((hook) => hook.payload.event === 'publish' && hook.payload.cmsDocId === docId);

  it('two processes run each due schedule exactly once', async () => {
    const [a, b] = [await start(), await start()];
    const docIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const doc = await ok(i % 2 ? a : b, 'POST', '/api/v1/article?cmsMode=draft', { title: `Race ${i}` });
      docIds.push(doc.cmsDocId);
    }
    const at = inMs(1_500);
    await Promise.all(docIds.map((docId, i) => ok(i % 2 ? b : a, 'POST', `/api/v1/article/${docId}:en:draft/schedule`, { publishAt: at })));
    for (const docId of docIds) {
      await eventually(() => sendRequest(b.port, 'GET', `/api/v1/article/${docId}:en:published`, undefined, admin), (r) => r.status === 200);
    }
    await receiver.waitFor(docIds.length, 10_000);
    // Time for any second run to show itself.
    await sleep(1_000);
    for (const docId of docIds) assert.equal(publishHooksOf(docId).length, 1, `${docId}: published once`);
    await Promise.all([a.stop(), b.stop()]);
    running.length = 0;
  });

  it('a schedule whose time passed while no process ran runs at the next start, as its API key is then', async () => {
    // A stored key (cms apikey create) and two configured ones schedule a publish each.
    const [created, kept, a] = await Promise.all([
      runCli(['apikey', 'create', '--role', 'editor'], { env }),
      runCli(['apikey', 'create', '--role', 'editor'], { env }),
      start(),
    ]);
    assert.equal(created.code, 0, created.stderr);
    const storedKey = created.stdout.trimEnd();
    const storedKeyId = /API key ([a-z0-9]{24})/.exec(created.stderr)![1]!;
    const keptKeyId = /API key ([a-z0-9]{24})/.exec(kept.stderr)![1]!;
    const doc = await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { title: 'While away' });
    const byKeptKey = (await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { title: 'By a stored key kept' })).cmsDocId;
    const keptAuth = { authorization: `ApiKey ${kept.stdout.trimEnd()}` };
    const keyed: Record<string, { key: string; docId?: string }> = { removed: { key: removedKey }, lowered: { key: loweredKey }, revoked: { key: storedKey } };
    for (const [name, each] of Object.entries(keyed)) each.docId = (await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { title: `By the ${name} key` })).cmsDocId;
    const at = inMs(1_500);
    await ok(a, 'POST', `/api/v1/article/${doc.cmsDocId}:en:draft/schedule`, { publishAt: at });
    assert.equal((await sendRequest(a.port, 'POST', `/api/v1/article/${byKeptKey}:en:draft/schedule`, { publishAt: at }, keptAuth)).status, 200);
    for (const { key, docId } of Object.values(keyed)) {
      const res = await sendRequest(a.port, 'POST', `/api/v1/article/${docId}:en:draft/schedule`, { publishAt: at }, { authorization: `ApiKey ${key}` });
      assert.equal(res.status, 200, res.text);
    }
    await a.stop();
    running.length = 0;
    // Meanwhile one key leaves the configuration, another is lowered to a role that may not publish, the stored one is revoked.
    await writeFile(configPath, JSON.stringify(processConfig(receiver.url, adminKey, { [loweredKey]: { role: 'contributor' } })));
    assert.equal((await runCli(['apikey', 'revoke', storedKeyId], { env })).code, 0);
    await sleep(Math.max(0, Date.parse(at) - Date.now() + 200));
    const b = await start();
    const live = await eventually(() => sendRequest(b.port, 'GET', `/api/v1/article/${doc.cmsDocId}:en:published`, undefined, admin), (r) => r.status === 200);
    assert.equal(live.body.title, 'While away');
    await eventually(async () => publishHooksOf(doc.cmsDocId).length, (count) => count === 1);
    const draft = await ok(b, 'GET', `/api/v1/article/${doc.cmsDocId}:en:draft`);
    assert.equal(draft.scheduledPublish, undefined);
    const reasons: Record<string, string> = {};
    for (const [name, { docId }] of Object.entries(keyed)) {
      const failed = await eventually(() => ok(b, 'GET', `/api/v1/article/${docId}:en:draft`), (body) => body.scheduledPublish?.status === 'failed');
      reasons[name] = failed.scheduledPublish.reason;
      assert.equal((await sendRequest(b.port, 'GET', `/api/v1/article/${docId}:en:published`, undefined, admin)).status, 404, `${name}: not published`);
    }
    // The kept stored key's schedule ran, and its record names the key, as the key's own writes do.
    await eventually(() => sendRequest(b.port, 'GET', `/api/v1/article/${byKeptKey}:en:published`, undefined, admin), (r) => r.status === 200);
    const run = await ok(b, 'GET', `/api/v1/@cms/audit?action=document.publish&actor=${keptKeyId}`);
    assert.deepEqual(run.results.map((record: any) => [record.ids[0], record.actor._id, record.detail.schedule.at]), [[byKeptKey, keptKeyId, at]]);
    const gone = 'The API key that scheduled it was revoked or is no longer configured';
    assert.deepEqual(reasons, { removed: gone, lowered: 'The API key that scheduled it may no longer publish article', revoked: gone });
  });
});
