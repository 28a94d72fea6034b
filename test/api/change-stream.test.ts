import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { openEventStream, type EventStreamClient, type StreamEvent } from '../helpers/event-stream.js';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/*
 * GET /api/v1/@cms/events: every committed change once, in commit order, to the callers who may
 * read the version it left; what missed a part gets it with Last-Event-ID; bounded per caller and
 * address; heard in another process on the same store.
 */

const admin = { authorization: `ApiKey ${keys.admin}` };
const announcementKeys = ['_id', 'cmsDocId', 'cmsLocale', 'cmsMode', 'type', 'updatedAt', 'updatedBy'];
const ofDoc = (docId: string) => (event: StreamEvent) => event.data.cmsDocId === docId;

describe('the change stream', () => {
  let t: TestApp;
  let port: number;
  const open: EventStreamClient[] = [];
  const stream = async (path = '/api/v1/@cms/events', headers: Record<string, string> = admin) => {
    const client = await openEventStream(port, path, headers);
    open.push(client);
    return client;
  };
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_EVENT_STREAMS_PER_CALLER: '4', CMS_LIMIT_SCHEDULER_INTERVAL: '100' });
    port = await t.listen();
  });
  afterEach(async () => {
    const closing = open.splice(0);
    for (const client of closing) client.close();
    await Promise.all(closing.map((client) => client.ended));
  });
  after(async () => {
    for (const client of open) client.close();
    await t.close();
  });

  /** Writes a published article and waits until `client` has heard of it: everything written before was announced to it by then. */
  async function marker(client: EventStreamClient): Promise<void> {
    const res = await t.request('POST', '/api/v1/article', { body: { title: `Marker ${Math.random()}` } });
    await client.next(ofDoc(res.body.cmsDocId));
  }

  it('tells an admin of each committed change, in commit order: its id, its action and the version', async () => {
    const client = await stream();
    assert.equal(client.status, 200);
    assert.match(String(client.headers['content-type']), /^text\/event-stream/);
    assert.equal(client.headers['cache-control'], 'no-store');
    const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Streamed' } });
    const draft = created.body._id as string;
    const docId = created.body.cmsDocId as string;
    assert.equal((await t.request('PATCH', `/api/v1/article/${draft}`, { body: { title: 'Streamed again' } })).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${draft}/publish`)).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${draft}/localize`, { body: { toLocale: 'es' } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${draft}`, { body: { archived: true } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${draft}`, { body: { archived: false } })).status, 200);
    await marker(client);
    const heard = client.events.filter(ofDoc(docId));
    assert.deepEqual(heard.map((event) => [event.event, event.data._id]).slice(0, 4), [
      ['insert', draft],
      ['update', draft],
      ['publish', `${docId}:en:published`],
      ['localize', `${docId}:es:draft`],
    ]);
    assert.ok(heard.slice(4).some((event) => event.event === 'archive'), JSON.stringify(heard));
    assert.ok(heard.slice(4).some((event) => event.event === 'restore'), JSON.stringify(heard));
    const ids = client.events.map((event) => Number(event.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ids grow');
    assert.equal(new Set(ids).size, ids.length, 'each change once');
    const [first] = heard;
    assert.deepEqual(Object.keys(first!.data).sort(), announcementKeys);
    assert.deepEqual(first!.data, {
      type: 'article', _id: draft, cmsDocId: docId, cmsLocale: 'en', cmsMode: 'draft',
      updatedAt: first!.data.updatedAt, updatedBy: { _id: null, title: 'System Task', username: null },
    });
    assert.match(first!.data.updatedAt, /^\d{4}-\d\d-\d\dT/);
  });

  it('tells of a delete, and of the publish and unpublish a schedule runs, as they commit', async () => {
    const client = await stream();
    const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'On a schedule' } });
    const draft = created.body._id as string;
    const docId = created.body.cmsDocId as string;
    const publishAt = new Date(Date.now() + 1_200).toISOString();
    const unpublishAt = new Date(Date.now() + 2_400).toISOString();
    assert.equal((await t.request('POST', `/api/v1/article/${draft}/schedule`, { body: { publishAt, unpublishAt } })).status, 200);
    const published = await client.next((event) => event.event === 'publish' && event.data.cmsDocId === docId, 6_000);
    assert.equal(published.data._id, `${docId}:en:published`);
    assert.ok(Date.now() >= Date.parse(publishAt), 'not before its time');
    const unpublished = await client.next((event) => event.event === 'unpublish' && event.data.cmsDocId === docId, 6_000);
    assert.equal(unpublished.data._id, `${docId}:en:published`);

    const doomed = await t.request('POST', '/api/v1/note', { body: { title: 'Gone soon' } });
    assert.equal((await t.request('DELETE', `/api/v1/note/${doomed.body._id}`)).status, 200);
    const deleted = await client.next((event) => event.event === 'delete' && event.data.cmsDocId === doomed.body.cmsDocId);
    assert.equal(deleted.data._id, doomed.body._id);
    assert.equal(deleted.data.updatedAt, null);
  });

  it('tells each caller only of what it may read: anonymous callers, published public versions without updatedBy', async () => {
    const anonymous = await stream('/api/v1/@cms/events', {});
    const contributor = await stream('/api/v1/@cms/events', { authorization: `ApiKey ${keys.contributor}` });
    const draftOnly = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Not yet public' } });
    const members = await t.request('POST', '/api/v1/article', { body: { title: 'Members only', visibility: 'loginRequired' } });
    const note = await t.request('POST', '/api/v1/note', { body: { title: 'A note' } });
    const published = await t.request('POST', '/api/v1/article', { body: { title: 'For everyone' } });
    for (const res of [draftOnly, members, note, published]) assert.equal(res.status, 200, res.text);
    await marker(anonymous);
    await marker(contributor);
    const heardBy = (client: EventStreamClient) => new Set(client.events.map((event) => event.data.cmsDocId));
    const everyone = heardBy(anonymous);
    assert.equal(everyone.has(published.body.cmsDocId), true);
    for (const hidden of [draftOnly, members, note]) assert.equal(everyone.has(hidden.body.cmsDocId), false, hidden.body.title);
    for (const event of anonymous.events) {
      assert.equal(event.data.cmsMode, 'published');
      assert.deepEqual(Object.keys(event.data).sort(), announcementKeys.filter((key) => key !== 'updatedBy'));
    }
    assert.equal(heardBy(contributor).has(draftOnly.body.cmsDocId), true, 'a contributor reads drafts');
    // An unpublish takes away the published version: those who read only published versions hear of it.
    const docId = published.body.cmsDocId as string;
    assert.equal((await t.request('POST', `/api/v1/article/${docId}:en:draft/unpublish`)).status, 200);
    const gone = await anonymous.next((event) => event.event === 'unpublish' && event.data.cmsDocId === docId);
    assert.deepEqual([gone.data._id, gone.data.cmsMode], [`${docId}:en:published`, 'published']);
  });

  it('announces nothing a refused write did not commit', async () => {
    const client = await stream();
    const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Kept as is' } });
    await client.next(ofDoc(created.body.cmsDocId));
    const refused = [
      await t.request('PATCH', `/api/v1/article/${created.body._id}`, { body: { title: 'Lost' }, headers: { 'if-match': '"stale"' } }),
      await t.request('PATCH', `/api/v1/article/${created.body._id}`, { body: { priority: 'not a number' } }),
      await t.request('POST', `/api/v1/article/${created.body._id}/publish`, { key: 'contributor' }),
    ];
    assert.deepEqual(refused.map((res) => res.status), [412, 400, 403]);
    await marker(client);
    assert.deepEqual(client.events.filter(ofDoc(created.body.cmsDocId)).map((event) => event.event), ['insert']);
  });

  it('sends what a reconnecting client missed after its Last-Event-ID, and resync for an id the log does not hold', async () => {
    const client = await stream();
    const written = [];
    for (const title of ['Missed one', 'Missed two', 'Missed three']) written.push((await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title } })).body);
    const heard = await Promise.all(written.map((doc) => client.next(ofDoc(doc.cmsDocId))));
    const again = await stream('/api/v1/@cms/events', { ...admin, 'last-event-id': heard[0]!.id! });
    const caught = await Promise.all(written.slice(1).map((doc) => again.next(ofDoc(doc.cmsDocId))));
    assert.deepEqual(caught.map((event) => event.id), heard.slice(1).map((event) => event.id));
    assert.equal(again.events.some(ofDoc(written[0].cmsDocId)), false, 'nothing at or before the id again');
    // The query parameter does the same, for clients that cannot send the header.
    const byQuery = await stream(`/api/v1/@cms/events?lastEventId=${heard[1]!.id}`);
    assert.equal((await byQuery.next(ofDoc(written[2].cmsDocId))).id, heard[2]!.id);
    for (const client of open.splice(0)) client.close();
    const unknown = await stream('/api/v1/@cms/events', { ...admin, 'last-event-id': '999999999' });
    const resync = await unknown.next((event) => event.event === 'resync');
    assert.deepEqual(Object.keys(resync.data), ['latest']);
    assert.ok(resync.data.latest >= Number(heard[2]!.id));
  });

  it('narrows by type, locale, mode and id, and refuses what it does not know with a 400', async () => {
    const notes = await stream('/api/v1/@cms/events?type=note');
    const one = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Followed' } });
    const byId = await stream(`/api/v1/@cms/events?_id=${one.body.cmsDocId}&cmsMode=draft`);
    const note = await t.request('POST', '/api/v1/note', { body: { title: 'Heard' } });
    assert.equal((await t.request('PATCH', `/api/v1/article/${one.body._id}`, { body: { title: 'Followed still' } })).status, 200);
    await notes.next(ofDoc(note.body.cmsDocId));
    await byId.next((event) => event.event === 'update');
    assert.deepEqual([...new Set(notes.events.map((event) => event.data.type))], ['note']);
    assert.deepEqual(byId.events.map((event) => [event.event, event.data._id]), [['update', one.body._id]]);
    for (const client of open.splice(0)) client.close();
    for (const [path, headers] of [['/api/v1/@cms/events?sort=1', admin], ['/api/v1/@cms/events?type=', admin], ['/api/v1/@cms/events', { ...admin, 'last-event-id': 'abc' }]] as const) {
      const refused = await stream(path, headers);
      assert.equal(refused.status, 400, path);
      assert.deepEqual(Object.keys(refused.body).sort(), ['data', 'message', 'name']);
      assert.equal(refused.body.name, 'invalid');
    }
  });

  it('refuses a caller more streams than its limit with 429, and lets one in again once another closed', async () => {
    // A caller the tests before did not use: none of its streams is still closing.
    const editor = { authorization: `ApiKey ${keys.editor}` };
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await stream('/api/v1/@cms/events', editor));
    assert.deepEqual(held.map((client) => client.status), [200, 200, 200, 200]);
    const refused = await stream('/api/v1/@cms/events', editor);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.body.name, 'toomany');
    assert.equal(refused.body.data.limit, 'eventStreamsPerCaller');
    held[0]!.close();
    await held[0]!.ended;
    // The server hears of the close when the socket ends: a moment after the client's.
    let again = await stream('/api/v1/@cms/events', editor);
    for (let i = 0; again.status !== 200 && i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await stream('/api/v1/@cms/events', editor);
    }
    assert.equal(again.status, 200);
  });
});

describe('the change stream: heartbeats, lifetime, and other processes', () => {
  let t: TestApp;
  let other: TestApp;
  let port: number;
  before(async () => {
    const limits = { CMS_LIMIT_EVENT_STREAM_HEARTBEAT: '1000', CMS_LIMIT_EVENT_STREAM_LIFETIME: '2500', CMS_LIMIT_EVENT_STREAMS_PER_ADDRESS: '2' };
    t = await startTestApp(testConfig(), limits);
    port = await t.listen();
    // Another server on the same store, as a second process would be.
    other = await startTestApp(testConfig(), { CMS_DATABASE_URL: t.databaseUrl });
  });
  after(async () => {
    await other.close();
    await t.close();
  });

  it('hears within a second what another server on the same store committed', async () => {
    const client = await openEventStream(port, '/api/v1/@cms/events', admin);
    try {
      const created = await other.request('POST', '/api/v1/article', { body: { title: 'From the other process' } });
      assert.equal(created.status, 200, created.text);
      const event = await client.next(ofDoc(created.body.cmsDocId), 1_000);
      assert.equal(event.event, 'insert');
    } finally {
      client.close();
    }
  });

  it('sends a heartbeat comment while idle, ends the stream after its lifetime, and counts streams per address', async () => {
    const client = await openEventStream(port, '/api/v1/@cms/events', {});
    const second = await openEventStream(port, '/api/v1/@cms/events', {});
    const third = await openEventStream(port, '/api/v1/@cms/events', {});
    assert.deepEqual([client.status, second.status, third.status], [200, 200, 429]);
    assert.equal(third.body.data.limit, 'eventStreamsPerAddress');
    second.close();
    await client.ended;
    assert.ok(client.comments.includes('heartbeat'), JSON.stringify(client.comments));
  });
});

describe('the change stream: stopping the server', () => {
  it('ends the open streams when the server closes, rather than waiting for their lifetime', async () => {
    const t = await startTestApp(testConfig());
    const client = await openEventStream(await t.listen(), '/api/v1/@cms/events', admin);
    assert.equal(client.status, 200);
    const closed = t.close().then(() => 'closed');
    const waited = new Promise((resolve) => setTimeout(resolve, 5_000, 'still open after 5 s'));
    assert.equal(await Promise.race([closed, waited]), 'closed');
    await client.ended;
  });
});
