import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { openEventStream, type EventStreamClient, type StreamEvent } from '../helpers/event-stream.js';
import { isoDate, keys, signedInUser, startTestApp, testConfig, type SignedInUser, type TestApp } from '../helpers/test-app.js';

/*
 * POST /api/v1/@cms/presence and DELETE …/:tabId: an editor's tab says which document it shows;
 * the others who may read the type's drafts hear who is there on their event streams
 * (`presence=true`), from any process on the store; an announce not renewed lapses.
 */

const presenceOf = (docId: string) => (event: StreamEvent) => event.event === 'presence' && event.data.cmsDocId === docId;
const names = (event: StreamEvent) => event.data.present.map((editor: { title: string; state: string }) => `${editor.title}:${editor.state}`);

describe('presence on a document', () => {
  let t: TestApp;
  let other: TestApp;
  let port: number;
  let otherPort: number;
  let alice: SignedInUser;
  let bob: SignedInUser;
  let docId: string;
  const open: EventStreamClient[] = [];
  const stream = async (headers: Record<string, string>, path = '/api/v1/@cms/events?presence=true', at = port) => {
    const client = await openEventStream(at, path, headers);
    open.push(client);
    return client;
  };
  const announce = (user: SignedInUser, body: Record<string, unknown>, app = t) =>
    app.request('POST', '/api/v1/@cms/presence', { key: null, headers: user.headers, body: { type: 'article', cmsDocId: docId, cmsLocale: 'en', state: 'viewing', ...body } });

  before(async () => {
    const limits = { CMS_LIMIT_PRESENCE_TTL: '2000', CMS_LIMIT_PRESENCE_POLL: '100', CMS_LIMIT_PRESENCE_PER_CALLER: '3' };
    t = await startTestApp(testConfig(), limits);
    port = await t.listen();
    // Another server on the same store, as a second process would be.
    other = await startTestApp(testConfig(), { ...limits, CMS_DATABASE_URL: t.databaseUrl });
    otherPort = await other.listen();
    alice = await signedInUser(t, 'alice', 'editor');
    bob = await signedInUser(t, 'bob', 'contributor');
    docId = (await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Worked on together' } })).body.cmsDocId;
  });
  afterEach(async () => {
    const closing = open.splice(0);
    for (const client of closing) client.close();
    await Promise.all(closing.map((client) => client.ended));
  });
  after(async () => {
    await other.close();
    await t.close();
  });

  it('tells the others who views and who edits a document, since when, and when they leave', async () => {
    const bobHears = await stream(bob.headers);
    const first = await announce(alice, { tabId: 'alice-tab-1' });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { present: [], expiresIn: 2000 });
    const viewing = await bobHears.next((event) => presenceOf(docId)(event) && event.data.present.length === 1);
    assert.equal(viewing.id, undefined, 'presence moves no Last-Event-ID');
    assert.deepEqual(Object.keys(viewing.data).sort(), ['cmsDocId', 'cmsLocale', 'present', 'type']);
    const [seen] = viewing.data.present;
    assert.deepEqual({ ...seen, since: 'since' }, { _id: alice.id, title: 'alice Person', state: 'viewing', since: 'since' });
    assert.match(seen.since, isoDate);
    assert.equal(viewing.data.cmsLocale, 'en');

    // Bob's own announce answers who else is there; Alice's stream hears of Bob.
    const aliceHears = await stream(alice.headers);
    const bobs = await announce(bob, { tabId: 'bob-tab-1' });
    assert.deepEqual(bobs.body.present.map((editor: { _id: string }) => editor._id), [alice.id]);
    await aliceHears.next((event) => presenceOf(docId)(event) && names(event).includes('bob Person:viewing'));

    // Editing keeps the time she came; her second tab counts once.
    await announce(alice, { tabId: 'alice-tab-1', state: 'editing' });
    await announce(alice, { tabId: 'alice-tab-2' });
    const editing = await bobHears.next((event) => presenceOf(docId)(event) && names(event).includes('alice Person:editing'));
    assert.deepEqual(names(editing), ['alice Person:editing', 'bob Person:viewing']);
    assert.equal(editing.data.present[0].since, seen.since);

    for (const tab of ['alice-tab-1', 'alice-tab-2']) {
      const left = await t.request('DELETE', `/api/v1/@cms/presence/${tab}`, { key: null, headers: alice.headers });
      assert.equal(left.status, 204);
    }
    const gone = await bobHears.next((event) => presenceOf(docId)(event) && !names(event).some((name: string) => name.startsWith('alice')));
    assert.deepEqual(names(gone), ['bob Person:viewing']);
    await t.request('DELETE', '/api/v1/@cms/presence/bob-tab-1', { key: null, headers: bob.headers });
  });

  it('hears an editor on another process, tells a new stream who is already there, and lets a presence not renewed lapse', async () => {
    const bobHears = await stream(bob.headers, undefined, otherPort);
    const opened = Date.now();
    assert.equal((await announce(alice, { tabId: 'alice-tab-3' })).status, 200);
    await bobHears.next((event) => presenceOf(docId)(event) && names(event).includes('alice Person:viewing'));
    assert.ok(Date.now() - opened < 1000, 'heard within a second on the other process');

    const late = await stream(bob.headers);
    await late.next((event) => presenceOf(docId)(event) && names(event).includes('alice Person:viewing'), 500);

    // No renewal: the presence lapses after its 2 s.
    const lapsed = await bobHears.next((event) => presenceOf(docId)(event) && event.data.present.length === 0, 4000);
    assert.ok(Date.now() - opened >= 1900, `lapsed after ${Date.now() - opened} ms`);
    assert.deepEqual(lapsed.data.present, []);
  });

  it('is heard only by those who may read the drafts, and only on streams that ask for it', async () => {
    const anonymous = await stream({});
    const guest = await stream({ authorization: `ApiKey ${keys.guest}` });
    const notAsked = await stream(bob.headers, '/api/v1/@cms/events');
    const otherType = await stream(bob.headers, '/api/v1/@cms/events?presence=true&type=note');
    const asked = await stream(bob.headers);
    await announce(alice, { tabId: 'alice-tab-4' });
    await asked.next(presenceOf(docId));
    // A change written after the announce is heard on every stream that hears changes: the presence, had it been sent, came first.
    const marker = await t.request('POST', '/api/v1/article', { body: { title: 'Marker' } });
    for (const client of [anonymous, notAsked, otherType]) await client.next((event) => event.data.cmsDocId === marker.body.cmsDocId).catch(() => undefined);
    for (const client of [anonymous, guest, notAsked, otherType]) assert.deepEqual(client.events.filter((event) => event.event === 'presence'), []);
    await t.request('DELETE', '/api/v1/@cms/presence/alice-tab-4', { key: null, headers: alice.headers });
  });

  it('refuses callers that are no user, types they may not read, malformed announces, and more tabs than the limit', async () => {
    const byKey = await t.request('POST', '/api/v1/@cms/presence', { body: { type: 'article', cmsDocId: docId, cmsLocale: 'en', state: 'viewing', tabId: 'key-tab-1' } });
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.name, 'forbidden');
    const anonymous = await t.request('POST', '/api/v1/@cms/presence', { key: null, body: { type: 'article', cmsDocId: docId, state: 'viewing', tabId: 'anon-tab-1' } });
    assert.equal(anonymous.status, 403);
    const guest = await signedInUser(t, 'gina', 'guest');
    assert.equal((await announce(guest, { tabId: 'gina-tab-1' })).status, 404, 'a guest reads no drafts');
    const refused = await Promise.all([
      announce(alice, { tabId: 'alice-tab-5', type: 'nosuch' }),
      announce(alice, { tabId: 'alice-tab-5', type: ['article'] }),
      announce(alice, { tabId: 'short' }),
      announce(alice, { tabId: '../../etc/passwd' }),
      announce(alice, { tabId: 'alice-tab-5', state: 'typing' }),
      announce(alice, { tabId: 'alice-tab-5', cmsLocale: 'fr' }),
      announce(alice, { tabId: 'alice-tab-5', cmsDocId: 'x'.repeat(101) }),
      announce(alice, { tabId: 'alice-tab-5', cmsLocale: null }),
      t.request('POST', '/api/v1/@cms/presence', { key: null, headers: alice.headers, body: ['article'] }),
      t.request('POST', '/api/v1/@cms/presence', { key: null, headers: { ...alice.headers, 'content-type': 'application/json' }, payload: '{"type":' }),
      t.request('DELETE', '/api/v1/@cms/presence/no', { key: null, headers: alice.headers }),
    ]);
    assert.deepEqual(refused.map((res) => res.status), [404, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of refused) assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);

    for (const tab of ['alice-tab-6', 'alice-tab-7', 'alice-tab-8']) assert.equal((await announce(alice, { tabId: tab })).status, 200);
    const fourth = await announce(alice, { tabId: 'alice-tab-9' });
    assert.equal(fourth.status, 429);
    assert.equal(fourth.body.data.limit, 'presencePerCaller');
    assert.equal(fourth.headers['retry-after'], '5');
    assert.equal((await announce(alice, { tabId: 'alice-tab-8', state: 'editing' })).status, 200, 'a tab it has renews');
    const left = await t.request('DELETE', '/api/v1/@cms/presence/alice-tab-6', { key: null, headers: alice.headers });
    assert.equal(left.status, 204);
    assert.equal((await announce(alice, { tabId: 'alice-tab-9' })).status, 200, 'a tab that left makes room');
    for (const tab of ['alice-tab-7', 'alice-tab-8', 'alice-tab-9']) await t.request('DELETE', `/api/v1/@cms/presence/${tab}`, { key: null, headers: alice.headers });
  });
});
