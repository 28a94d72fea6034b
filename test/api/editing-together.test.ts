import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type TestResponse, signedInUser, type SignedInUser } from '../helpers/test-app.js';

/*
 * Editing together (issue 22): `If-Match` on every write to a stored document (412 when the
 * version read has changed since, nothing written), the new ETag on every write's answer, and
 * the original's advisory locks (`_advisoryLock`, 409 `locked`), `_patches` and `_publish`.
 * Runs on the store the API tests run on (SQLite, or PostgreSQL with `npm run test:postgres`).
 */

type Headers = Record<string, string>;

function ok(res: TestResponse, what: string): TestResponse {
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  return res;
}

function etagOf(res: TestResponse): string {
  const etag = res.headers.etag;
  assert.equal(typeof etag, 'string', 'the answer carries an ETag');
  assert.match(etag as string, /^"[dpu][0-9a-z]+\.[\w-]{27}"$/);
  return etag as string;
}

/** A 412 in the one error shape, naming who changed the version and when. */
function assertChanged(res: TestResponse, by: { username: string | null; title: string }): void {
  assert.equal(res.status, 412, res.text);
  assert.equal(res.body.name, 'changed');
  assert.match(res.body.message, new RegExp(`^${by.title} changed this document at `));
  assert.match(res.body.data.updatedAt, /^\d{4}-\d{2}-\d{2}T/);
  assert.equal(res.body.data.updatedBy.username, by.username);
  assert.equal(res.body.data.updatedBy.title, by.title);
}

const systemTask = { username: null, title: 'System Task' };

describe('If-Match on every write', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A published article (draft and published versions), and the draft's path. */
  async function article(title: string): Promise<{ docId: string; draft: string; published: string }> {
    const created = ok(await t.request('POST', '/api/v1/article', { body: { title } }), 'insert');
    const docId = created.body.cmsDocId as string;
    return { docId, draft: `/api/v1/article/${docId}:en:draft`, published: `/api/v1/article/${docId}:en:published` };
  }

  async function read(path: string): Promise<{ body: any; etag: string }> {
    const res = ok(await t.request('GET', path), `GET ${path}`);
    return { body: res.body, etag: etagOf(res) };
  }

  it('refuses a PATCH on a version changed since it was read (412, who and when, nothing written); the one read last goes through', async () => {
    const { draft } = await article('Lost update');
    const first = await read(draft);
    const second = await read(draft);
    assert.equal(first.etag, second.etag, 'the same version, the same ETag');

    const categorySaved = ok(await t.request('PATCH', draft, { body: { category: 'News' }, headers: { 'if-match': first.etag } }), 'first save');
    const newEtag = etagOf(categorySaved);
    assert.notEqual(newEtag, first.etag);

    const titleSave = await t.request('PATCH', draft, { body: { title: 'Changed title' }, headers: { 'if-match': second.etag } });
    assertChanged(titleSave, systemTask);
    assert.equal(titleSave.body.data.updatedAt, categorySaved.body.updatedAt);
    const stored = await read(draft);
    assert.equal(stored.body.title, 'Lost update', 'nothing written');
    assert.equal(stored.body.category, 'News');
    assert.equal(stored.body.updatedAt, categorySaved.body.updatedAt);
    assert.equal(stored.etag, newEtag, 'the write answered the ETag a GET answers now');

    // Read again, then save: the client chains writes with the ETag each answer carries.
    const retried = ok(await t.request('PATCH', draft, { body: { title: 'Changed title' }, headers: { 'if-match': stored.etag } }), 'retry');
    const chained = ok(await t.request('PATCH', draft, { body: { priority: 3 }, headers: { 'if-match': etagOf(retried) } }), 'chained');
    assert.equal(chained.body.title, 'Changed title');
    assert.equal(chained.body.category, 'News');
    assert.equal(chained.body.priority, 3);
  });

  it('checks If-Match on PUT, DELETE, publish, unpublish, localize and both reverts, each writing nothing on 412', async () => {
    const { draft, published } = await article('Every route');
    const stale = (await read(draft)).etag;
    const stalePublished = (await read(published)).etag;
    ok(await t.request('PATCH', draft, { body: { category: 'moved on' } }), 'a change by another client');
    const routes: { method: 'PUT' | 'DELETE' | 'POST'; path: string; body?: unknown; etag: string }[] = [
      { method: 'PUT', path: draft, body: { title: 'Replaced' }, etag: stale },
      { method: 'DELETE', path: draft, etag: stale },
      { method: 'POST', path: `${draft}/publish`, etag: stale },
      { method: 'POST', path: `${draft}/unpublish`, etag: stale },
      { method: 'POST', path: `${draft}/localize`, body: { toLocale: 'es' }, etag: stale },
      { method: 'POST', path: `${draft}/revert-draft-to-published`, etag: stale },
    ];
    for (const route of routes) {
      const res = await t.request(route.method, route.path, { body: route.body, headers: { 'if-match': route.etag } });
      assertChanged(res, systemTask);
    }
    const after = await read(draft);
    assert.equal(after.body.title, 'Every route');
    assert.equal(after.body.category, 'moved on');
    assert.equal(after.body.modified, true, 'not reverted');
    assert.equal((await t.request('GET', `/api/v1/article/${after.body.cmsDocId}:es:draft`)).status, 404, 'not localized');
    assert.equal((await read(published)).body.category, '', 'not published');

    // The published version changes under a client that read it: revert-published-to-previous is refused.
    ok(await t.request('POST', `${draft}/publish`), 'publish');
    const revert = await t.request('POST', `${published}/revert-published-to-previous`, { headers: { 'if-match': stalePublished } });
    assertChanged(revert, systemTask);
    assert.equal((await read(published)).body.category, 'moved on', 'still the new publish');
  });

  it('lets each route through with the current ETag and answers the new one', async () => {
    const { draft, published } = await article('Current');
    let etag = (await read(draft)).etag;
    const put = ok(await t.request('PUT', draft, { body: { title: 'Put' }, headers: { 'if-match': etag } }), 'PUT');
    etag = etagOf(put);
    const published1 = ok(await t.request('POST', `${draft}/publish`, { headers: { 'if-match': etag } }), 'publish');
    assert.equal(published1.body.title, 'Put');
    const publishedEtag = etagOf(published1);
    assert.equal((await read(published)).etag, publishedEtag, 'the publish answer names the published version');
    // Publishing changes no content of the draft: the editor's ETag of it still holds.
    const patched = ok(await t.request('PATCH', draft, { body: { title: 'Second' }, headers: { 'if-match': etag } }), 'PATCH after publish');
    etag = etagOf(patched);
    const reverted = ok(await t.request('POST', `${draft}/revert-draft-to-published`, { headers: { 'if-match': etag } }), 'revert');
    assert.equal(reverted.body.title, 'Put');
    etag = etagOf(reverted);
    const localized = ok(await t.request('POST', `${draft}/localize`, { body: { toLocale: 'es' }, headers: { 'if-match': etag } }), 'localize');
    assert.equal(localized.body.cmsLocale, 'es:draft');
    etagOf(localized);
    ok(await t.request('PATCH', draft, { body: { title: 'Third' }, headers: { 'if-match': etag } }), 'PATCH');
    ok(await t.request('POST', `${draft}/publish`), 'publish again');
    const previousRevert = await t.request('POST', `${published}/revert-published-to-previous`, { headers: { 'if-match': (await read(published)).etag } });
    ok(previousRevert, 'revert published');
    assert.equal(previousRevert.body.title, 'Put');
    etagOf(previousRevert);
    const unpublished = ok(await t.request('POST', `${draft}/unpublish`, { headers: { 'if-match': (await read(draft)).etag } }), 'unpublish');
    etag = etagOf(unpublished);
    const removed = ok(await t.request('DELETE', draft, { headers: { 'if-match': etag } }), 'DELETE');
    assert.equal(removed.text, '');
    assert.equal((await t.request('GET', draft)).status, 404);
  });

  it('reads If-Match as HTTP does: * passes, a weak tag or another version never matches, an unreadable header is a 400', async () => {
    const { draft, published } = await article('Header forms');
    const current = await read(draft);
    ok(await t.request('PATCH', draft, { body: { priority: 1 }, headers: { 'if-match': '*' } }), '*');
    const fresh = await read(draft);
    assert.equal((await t.request('PATCH', draft, { body: { priority: 2 }, headers: { 'if-match': `W/${fresh.etag}` } })).status, 412, 'weak');
    assert.equal((await t.request('PATCH', draft, { body: { priority: 2 }, headers: { 'if-match': current.etag } })).status, 412, 'an older one');
    const list = ok(await t.request('GET', '/api/v1/article'), 'list');
    assert.equal((await t.request('PATCH', draft, { body: { priority: 2 }, headers: { 'if-match': list.headers.etag as string } })).status, 412, 'a list ETag');
    // One of several tags matches: through.
    ok(await t.request('PATCH', draft, { body: { priority: 2 }, headers: { 'if-match': `${current.etag}, ${fresh.etag}` } }), 'a list of tags');
    // The ETag of a compressed answer names the same version.
    const big = 'x'.repeat(2000);
    ok(await t.request('PATCH', draft, { body: { category: big } }), 'a large answer');
    const compressed = await t.request('GET', draft, { headers: { 'accept-encoding': 'br' } });
    assert.match(compressed.headers.etag as string, /-br"$/);
    ok(await t.request('PATCH', draft, { body: { category: 'small' }, headers: { 'if-match': compressed.headers.etag as string } }), 'br ETag');
    for (const header of ['abc', '"unterminated', '', 'W/abc', '"a" "b"']) {
      const res = await t.request('PATCH', draft, { body: { priority: 9 }, headers: { 'if-match': header } });
      assert.equal(res.status, 400, `If-Match: ${header}`);
      assert.equal(res.body.name, 'invalid');
    }
    assert.equal((await read(draft)).body.priority, 2, 'no refused write stored anything');
    // Without If-Match a write goes through as before: the interface does not ask for it.
    ok(await t.request('PATCH', published, { body: { priority: 5 } }), 'no If-Match');
  });

  it('names every change of a version apart, even two within one millisecond', async () => {
    const { draft } = await article('Fast writes');
    const etags = new Set<string>();
    let etag = (await read(draft)).etag;
    etags.add(etag);
    for (let n = 0; n < 20; n++) {
      const res = ok(await t.request('PATCH', draft, { body: { priority: n }, headers: { 'if-match': etag } }), `write ${n}`);
      etag = etagOf(res);
      etags.add(etag);
    }
    assert.equal(etags.size, 21);
    const at = await read(draft);
    const times = new Set<string>();
    const updates = await Promise.all(
      Array.from({ length: 10 }, (_, n) => t.request('PATCH', draft, { body: { priority: 50 + n } })),
    );
    for (const res of updates) times.add(ok(res, 'concurrent write').body.updatedAt);
    assert.equal(times.size, 10, 'each write moved updatedAt forward');
    assert.equal((await t.request('PATCH', draft, { body: { priority: 1 }, headers: { 'if-match': at.etag } })).status, 412);
  });

  it('matches If-Match against the version the path names on PUT, PATCH and DELETE: another version\'s ETag is a 412', async () => {
    const { draft, published } = await article('Named target');
    const draftTag = (await read(draft)).etag;
    const publishedTag = (await read(published)).etag;
    for (const [method, path, etag, body] of [
      ['PATCH', draft, publishedTag, { title: 'Through the published tag' }],
      ['PUT', draft, publishedTag, { title: 'Through the published tag' }],
      ['PATCH', published, draftTag, { title: 'Through the draft tag' }],
      ['DELETE', published, draftTag, undefined],
    ] as const) {
      const res = await t.request(method, path, { body, headers: { 'if-match': etag } });
      assertChanged(res, systemTask);
    }
    assert.equal((await read(draft)).body.title, 'Named target', 'nothing written');
    assert.equal((await read(published)).etag, publishedTag, 'the published version is as it was');
    // A list of tags matches when one of them names the target.
    ok(await t.request('PATCH', draft, { body: { title: 'Either tag' }, headers: { 'if-match': `${publishedTag}, ${draftTag}` } }), 'list');
  });

  it('answers a stale If-Match on a users document (a type without locales) with 412', async () => {
    const user = ok(await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Ann', username: 'ann-etag', password: 'ann-password-123', role: 'editor' } }), 'user');
    const path = `/api/v1/@cms/user/${user.body._id}`;
    const etag = etagOf(ok(await t.request('GET', path), 'GET user'));
    assert.match(etag, /^"u/);
    ok(await t.request('PATCH', path, { body: { title: 'Ann B' }, headers: { 'if-match': etag } }), 'first');
    assertChanged(await t.request('PATCH', path, { body: { title: 'Ann C' }, headers: { 'if-match': etag } }), systemTask);
  });
});

describe('advisory locks', () => {
  let t: TestApp;
  let ann: SignedInUser;
  let bob: SignedInUser;
  let carl: SignedInUser;
  before(async () => {
    t = await startTestApp(undefined, { CMS_LIMIT_ADVISORY_LOCK_TIMEOUT: '1' });
    ann = await signedInUser(t, 'ann', 'editor');
    bob = await signedInUser(t, 'bob', 'editor');
    carl = await signedInUser(t, 'carl', 'contributor');
  });
  after(() => t.close());

  async function draftOf(title: string): Promise<string> {
    const created = ok(await t.request('POST', '/api/v1/article', { body: { title } }), 'insert');
    return `/api/v1/article/${created.body.cmsDocId}:en:draft`;
  }

  function lock(tabId: string, extra: Record<string, unknown> = {}) {
    return { _advisoryLock: { tabId, lock: true, ...extra } };
  }

  it('takes and refreshes a lock without saving; another user gets 409 naming the holder, another tab of the same user {me:true}', async () => {
    const draft = await draftOf('Locked');
    const before = ok(await t.request('GET', draft), 'GET').body;
    const taken = ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab-1') }), 'take');
    assert.equal(taken.body.updatedAt, before.updatedAt, 'a lock alone saves nothing');
    assert.equal(taken.body.title, 'Locked');
    etagOf(taken);
    ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab-1') }), 'refresh');

    const other = await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { ...lock('bob-tab'), title: 'Bob was here' } });
    assert.equal(other.status, 409, other.text);
    assert.deepEqual({ name: other.body.name, data: other.body.data }, { name: 'locked', data: { username: 'ann', title: ann.title } });
    const sameUser = await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab-2') });
    assert.equal(sameUser.status, 409);
    assert.deepEqual({ name: sameUser.body.name, data: sameUser.body.data }, { name: 'locked', data: { me: true } });
    const after = ok(await t.request('GET', draft), 'GET').body;
    assert.equal(after.title, 'Locked', 'the refused body wrote nothing');
    assert.equal(after.updatedAt, before.updatedAt);

    // The holder saves under its lock; a write that asks for no lock is not stopped (the locks are advisory).
    const saved = ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: { ...lock('ann-tab-1'), title: 'Ann saved' } }), 'save');
    assert.equal(saved.body.title, 'Ann saved');
    assert.notEqual(saved.body.updatedAt, before.updatedAt);
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { category: 'no lock asked' } }), 'advisory');
  });

  it('lets force take a lock over, after which the first tab is refused; lock:false releases after the rest of the body', async () => {
    const draft = await draftOf('Take over');
    ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab') }), 'ann takes');
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab', { force: true }) }), 'bob takes over');
    const annAgain = await t.request('PATCH', draft, { key: null, headers: ann.headers, body: { ...lock('ann-tab'), title: 'Ann after' } });
    assert.equal(annAgain.status, 409);
    assert.deepEqual(annAgain.body.data, { username: 'bob', title: bob.title });

    const released = ok(
      await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { title: 'Bob done', _advisoryLock: { tabId: 'bob-tab', lock: false } } }),
      'release',
    );
    assert.equal(released.body.title, 'Bob done', 'the rest of the body applied');
    ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab') }), 'free again');
    // Releasing a lock one does not hold leaves it.
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { _advisoryLock: { tabId: 'bob-tab', lock: false } } }), 'not held');
    assert.equal((await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab') })).status, 409);
  });

  it('frees a lock not refreshed within advisoryLockTimeout', async () => {
    const draft = await draftOf('Expires');
    ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab') }), 'ann takes');
    assert.equal((await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab') })).status, 409);
    // The timeout is 1 s in this suite (CMS_LIMIT_ADVISORY_LOCK_TIMEOUT).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab') }), 'expired: bob takes it');
    assert.equal((await t.request('PATCH', draft, { key: null, headers: ann.headers, body: lock('ann-tab') })).status, 409);
  });

  it('takes a lock on PUT too, checks it before If-Match, and frees it when the document is deleted', async () => {
    const draft = await draftOf('Put lock');
    const etag = etagOf(ok(await t.request('GET', draft), 'GET'));
    ok(await t.request('PUT', draft, { key: null, headers: { ...ann.headers, 'if-match': etag }, body: { ...lock('ann-tab'), title: 'Put by Ann' } }), 'PUT');
    const bobPut = await t.request('PUT', draft, { key: null, headers: { ...bob.headers, 'if-match': etag }, body: { ...lock('bob-tab'), title: 'Bob' } });
    assert.equal(bobPut.status, 409, 'the lock answers first');
    const emptyPut = ok(await t.request('PUT', draft, { key: null, headers: ann.headers, body: lock('ann-tab') }), 'lock-only PUT');
    assert.equal(emptyPut.body.title, 'Put by Ann', 'a PUT of only the lock replaces nothing');
    const docId = draft.split('/').pop()!.split(':')[0]!;
    ok(await t.request('DELETE', draft), 'delete');
    assert.equal((await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab') })).status, 404);
    assert.ok(docId);
  });

  it('refuses a malformed _advisoryLock with 400 and writes nothing', async () => {
    const draft = await draftOf('Malformed');
    const bodies = [
      { _advisoryLock: true },
      { _advisoryLock: { lock: true } },
      { _advisoryLock: { tabId: '', lock: true } },
      { _advisoryLock: { tabId: 'x'.repeat(201), lock: true } },
      { _advisoryLock: { tabId: 'tab', lock: 'yes' } },
      { _advisoryLock: { tabId: 'tab', lock: true, force: 1 }, title: 'not saved' },
      { _advisoryLock: { tabId: { __proto__: 'x' }, lock: true } },
    ];
    for (const body of bodies) {
      const res = await t.request('PATCH', draft, { key: null, headers: ann.headers, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.name, 'invalid');
    }
    assert.equal(ok(await t.request('GET', draft), 'GET').body.title, 'Malformed');
  });

  it('saves nothing for an empty body; _patches apply in order under one save; _publish publishes the draft, or refuses it all', async () => {
    const draft = await draftOf('Controls');
    const before = ok(await t.request('GET', draft), 'GET').body;
    const empty = ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: {} }), 'empty');
    assert.equal(empty.body.updatedAt, before.updatedAt);

    const patched = ok(
      await t.request('PATCH', draft, {
        key: null, headers: ann.headers,
        body: { ...lock('ann-tab'), _patches: [{ title: 'One' }, { title: 'Two', category: 'A' }, { $push: { tags: 'news' } }] },
      }),
      '_patches',
    );
    assert.equal(patched.body.title, 'Two');
    assert.equal(patched.body.category, 'A');
    assert.deepEqual(patched.body.tags, ['news']);

    const contributorPublish = await t.request('PATCH', draft, { key: null, headers: carl.headers, body: { title: 'By Carl', _publish: true } });
    assert.equal(contributorPublish.status, 403, contributorPublish.text);
    assert.equal(ok(await t.request('GET', draft), 'GET').body.title, 'Two', 'the refused publish took its patch back with it');

    const published = ok(
      await t.request('PATCH', draft, { key: null, headers: ann.headers, body: { title: 'Published by patch', _publish: true, _advisoryLock: { tabId: 'ann-tab', lock: false } } }),
      '_publish',
    );
    assert.equal(published.body.cmsMode, 'draft', 'the answer is the draft');
    assert.equal(published.body.modified, false);
    const live = ok(await t.request('GET', draft.replace(':draft', ':published')), 'published').body;
    assert.equal(live.title, 'Published by patch');
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: lock('bob-tab') }), 'released with the publish');
  });

  it('never publishes on PUT: a draft read, changed and sent back whole (with its _publish flag, _patches) stays a draft', async () => {
    const draft = await draftOf('Round trip');
    const read = ok(await t.request('GET', draft, { key: null, headers: ann.headers }), 'GET').body;
    assert.equal(read._publish, true, 'the read answer carries the permission flag');
    const put = ok(
      await t.request('PUT', draft, { key: null, headers: ann.headers, body: { ...read, title: 'Changed, not published', _patches: [{ title: 'Not applied' }] } }),
      'PUT of the read answer',
    );
    assert.equal(put.body.title, 'Changed, not published', 'a PUT reads no _patches');
    assert.equal(put.body.modified, true, 'the draft differs from the published version');
    const live = ok(await t.request('GET', draft.replace(':draft', ':published')), 'published').body;
    assert.equal(live.title, 'Round trip', 'nothing went live');
  });
});
