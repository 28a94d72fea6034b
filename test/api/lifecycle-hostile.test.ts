import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp, type TestResponse, signedInUser, type SignedInUser } from '../helpers/test-app.js';

/*
 * The content-lifecycle routes (history, schedule, preview links, the audit trail) against the
 * lowest roles and hostile input, on the store the API tests run on (SQLite, or PostgreSQL with
 * CMS_TEST_API_DATABASE=postgres). A refused caller gets one answer, status and body, whether the
 * document exists, does not, or is of another type, and whatever it sends: the role is checked
 * before anything is read or validated. Nothing a refused request names changes in the store.
 */

type Key = 'admin' | 'editor' | 'contributor' | 'guest' | null;
type Method = 'GET' | 'POST' | 'DELETE';

/** Who calls: an API key of a role, or a signed-in user (bearer). */
interface Caller {
  readonly name: string;
  readonly key: Key;
  readonly headers?: Record<string, string>;
}

/** One lifecycle request against a document's URL; `hostile` sends what the route must refuse. */
interface Call {
  readonly name: string;
  readonly method: Method;
  readonly path: string;
  readonly body?: unknown;
  readonly payload?: string;
}

const json = { 'content-type': 'application/json' };
const missingDraft = 'abcdefghijklmnopqrstuvwx:en:draft';

/** Every lifecycle route of one document URL (`/api/v1/<type>/<id>`), well-formed or hostile. */
function lifecycleCalls(base: string, ids: { entry: string; link: string }, hostile: boolean): Call[] {
  const { entry, link } = ids;
  if (!hostile) {
    return [
      { name: 'history', method: 'GET', path: `${base}/history` },
      { name: 'entry', method: 'GET', path: `${base}/history/${entry}` },
      { name: 'restore', method: 'POST', path: `${base}/history/${entry}/restore` },
      { name: 'schedule', method: 'POST', path: `${base}/schedule`, body: { publishAt: '2099-01-01T00:00:00Z' } },
      { name: 'share', method: 'POST', path: `${base}/share`, body: { share: true, expiresIn: 60 } },
      { name: 'links', method: 'GET', path: `${base}/share` },
      { name: 'revoke', method: 'DELETE', path: `${base}/share/${link}` },
    ];
  }
  return [
    { name: 'history', method: 'GET', path: `${base}/history?page=-1&perPage=1e308` },
    { name: 'entry', method: 'GET', path: `${base}/history/${'z'.repeat(200)}` },
    { name: 'restore', method: 'POST', path: `${base}/history/__proto__/restore`, payload: '[1]' },
    { name: 'schedule', method: 'POST', path: `${base}/schedule`, body: { publishAt: '999999-01-01T00:00:00Z', sort: { $where: '1' } } },
    { name: 'share', method: 'POST', path: `${base}/share`, body: { share: 'yes', expiresIn: -1 } },
    { name: 'links', method: 'GET', path: `${base}/share?page=1e308` },
    { name: 'revoke', method: 'DELETE', path: `${base}/share/${encodeURIComponent("' OR 1=1 --")}` },
  ];
}

async function send(t: TestApp, call: Call, caller: Caller): Promise<TestResponse> {
  const headers = { ...(call.payload === undefined ? {} : json), ...caller.headers };
  return t.request(call.method, call.path, { key: caller.key, headers, body: call.body, payload: call.payload });
}

function ok(res: TestResponse, what: string): TestResponse {
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  return res;
}

/** The one error shape: `{ name, message, data }`. */
function assertErrorShape(res: TestResponse, status: number, name: string, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name'], what);
  assert.equal(res.body.name, name, what);
  assert.equal(typeof res.body.message, 'string', what);
}

describe('Lifecycle routes: a refused caller learns nothing and changes nothing', () => {
  let t: TestApp;
  let docId: string;
  let noteId: string;
  let entry: string;
  let noteEntry: string;
  let link: string;
  let guestUser: SignedInUser;
  let contributorUser: SignedInUser;

  before(async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, { options: Record<string, unknown> }>;
    // A type a contributor may not edit: its documents are as unknown to them as missing ones.
    modules.note!.options.editRole = 'editor';
    // A page, so that its drafts have preview links too.
    modules.note!.options.pagePath = '/notes';
    t = await startTestApp(config);
    docId = ok(await t.request('POST', '/api/v1/article', { body: { title: 'Guarded' } }), 'article').body.cmsDocId;
    noteId = ok(await t.request('POST', '/api/v1/note', { body: { title: 'Guarded note' } }), 'note').body.cmsDocId;
    entry = ok(await t.request('GET', `/api/v1/article/${docId}:en:draft/history`), 'history').body.results[0]._id;
    noteEntry = ok(await t.request('GET', `/api/v1/note/${noteId}:en:draft/history`), 'note history').body.results[0]._id;
    link = ok(await t.request('POST', `/api/v1/note/${noteId}:en:draft/share`, { body: { share: true, expiresIn: 600 } }), 'note link').body.cmsShareLinkId;
    ok(await t.request('POST', `/api/v1/article/${docId}:en:draft/share`, { body: { share: true, expiresIn: 600 } }), 'article link');
    guestUser = await signedInUser(t, 'guestuser', 'guest');
    contributorUser = await signedInUser(t, 'contribuser', 'contributor');
  });
  after(() => t.close());

  /** What an admin reads of the two documents and the trail: a refused request must leave all of it as it was. */
  async function storeState(): Promise<unknown> {
    const state: Record<string, unknown> = {};
    for (const base of [`/api/v1/article/${docId}:en:draft`, `/api/v1/note/${noteId}:en:draft`]) {
      const draft = ok(await t.request('GET', base), base).body;
      state[base] = {
        updatedAt: draft.updatedAt,
        title: draft.title,
        scheduledPublish: draft.scheduledPublish ?? null,
        cmsShareKey: draft.cmsShareKey ?? null,
        history: ok(await t.request('GET', `${base}/history?perPage=100`), 'history').body,
        links: ok(await t.request('GET', `${base}/share`), 'links').body,
      };
    }
    state.audit = ok(await t.request('GET', '/api/v1/@cms/audit?perPage=1'), 'audit').body;
    return state;
  }

  /**
   * For each caller and route: the existing document, a missing one, another type's id in the URL
   * and a hostile request all get the same 403, body and all.
   */
  async function assertSameRefusal(type: 'article' | 'note', callers: readonly Caller[], routes: readonly string[]): Promise<void> {
    const realId = type === 'article' ? docId : noteId;
    const ids = { entry: type === 'article' ? entry : noteEntry, link };
    const bases = [`/api/v1/${type}/${realId}:en:draft`, `/api/v1/${type}/${missingDraft}`, `/api/v1/${type}/${contributorUser.id}`];
    for (const caller of callers) {
      const variants = [...bases.map((base) => lifecycleCalls(base, ids, false)), lifecycleCalls(bases[0]!, ids, true)];
      for (const [index, call] of variants[0]!.entries()) {
        if (!routes.includes(call.name)) continue;
        const first = await send(t, call, caller);
        const what = `${caller.name} ${call.name} ${type}`;
        assertErrorShape(first, 403, 'forbidden', what);
        for (const variant of variants.slice(1)) {
          const other = await send(t, variant[index]!, caller);
          assert.equal(other.status, first.status, `${what} (${variant[index]!.path}): ${other.text}`);
          assert.deepEqual(other.body, first.body, `${what} (${variant[index]!.path})`);
        }
      }
    }
  }

  const allRoutes = ['history', 'entry', 'restore', 'schedule', 'share', 'links', 'revoke'];

  it('anonymous callers and guests (API key or signed in) get one 403 for every route, whatever the document or the body', async () => {
    const before = await storeState();
    const callers: Caller[] = [
      { name: 'anonymous', key: null },
      { name: 'guest key', key: 'guest' },
      { name: 'guest user', key: null, headers: guestUser.headers },
    ];
    await assertSameRefusal('article', callers, allRoutes);
    await assertSameRefusal('note', callers, allRoutes);
    assert.deepEqual(await storeState(), before);
  });

  it('a contributor gets that 403 for every route of a type they may not edit, and for scheduling any type', async () => {
    const before = await storeState();
    const contributors: Caller[] = [
      { name: 'contributor key', key: 'contributor' },
      { name: 'contributor user', key: null, headers: contributorUser.headers },
    ];
    await assertSameRefusal('note', contributors, allRoutes);
    await assertSameRefusal('article', contributors, ['schedule']);
    assert.deepEqual(await storeState(), before);
    // The rule is edit permission: the same contributor reads the history of a type they may edit.
    const own = ok(await t.request('GET', `/api/v1/article/${docId}:en:draft/history`, { key: null, headers: contributorUser.headers }), 'contributor');
    assert.ok(own.body.results.some((item: { action: string }) => item.action === 'insert'), own.text);
  });

  it('checks the role before the type\'s versions or the locale: users\' routes and an unknown cmsLocale are the same 403', async () => {
    const before = await storeState();
    const users = [`/api/v1/@cms/user/${contributorUser.id}`, '/api/v1/@cms/user/nosuchuser'].map((base) => lifecycleCalls(base, { entry, link }, false));
    for (const caller of [{ name: 'contributor', key: 'contributor' }, { name: 'editor', key: 'editor' }] as const) {
      for (const [index, call] of users[0]!.entries()) {
        const first = await send(t, call, caller);
        assertErrorShape(first, 403, 'forbidden', `${caller.name} ${call.path}`);
        assert.deepEqual((await send(t, users[1]![index]!, caller)).body, first.body, `${caller.name} ${call.name}`);
      }
    }
    const article = lifecycleCalls(`/api/v1/article/${docId}:en:draft`, { entry, link }, false);
    for (const caller of [{ name: 'anonymous', key: null }, { name: 'guest', key: 'guest' }] as const) {
      for (const call of article) {
        const plain = await send(t, call, caller);
        const unknownLocale = await send(t, { ...call, path: `${call.path}?cmsLocale=zz` }, caller);
        assertErrorShape(unknownLocale, 403, 'forbidden', `${caller.name} ${call.name} cmsLocale=zz`);
        assert.deepEqual(unknownLocale.body, plain.body, `${caller.name} ${call.name}`);
      }
    }
    assert.deepEqual(await storeState(), before);
  });

  it('every route answers an editor 404 for another type\'s id, a note through the article routes, and a missing document alike', async () => {
    const before = await storeState();
    const editor: Caller = { name: 'editor', key: 'editor' };
    const missing = lifecycleCalls(`/api/v1/article/${missingDraft}`, { entry, link }, false);
    const others = [
      lifecycleCalls(`/api/v1/article/${contributorUser.id}`, { entry, link }, false),
      lifecycleCalls(`/api/v1/article/${noteId}:en:draft`, { entry: noteEntry, link }, false),
      lifecycleCalls(`/api/v1/note/${docId}:en:draft`, { entry, link }, false),
    ];
    for (const [index, call] of missing.entries()) {
      const first = await send(t, call, editor);
      assertErrorShape(first, 404, 'notfound', call.path);
      for (const variant of others) {
        const other = await send(t, variant[index]!, editor);
        assert.equal(other.status, 404, `${variant[index]!.path}: ${other.text}`);
        assert.deepEqual(other.body, first.body, variant[index]!.path);
      }
    }
    assert.deepEqual(await storeState(), before);
  });

  it('a link or an entry of another draft is a 404 through this draft\'s URL, and the other draft keeps it', async () => {
    const before = await storeState();
    const article = `/api/v1/article/${docId}:en:draft`;
    const revoke = await t.request('DELETE', `${article}/share/${link}`, { key: 'editor' });
    assertErrorShape(revoke, 404, 'notfound', 'revoke of the note\'s link');
    const restore = await t.request('POST', `${article}/history/${noteEntry}/restore`, { key: 'editor' });
    assertErrorShape(restore, 404, 'notfound', 'restore of the note\'s entry');
    assert.deepEqual(await storeState(), before);
  });
});

describe('Lifecycle routes: hostile input is a 400 in the one error shape', () => {
  let t: TestApp;
  let draft: string;
  before(async () => {
    t = await startTestApp();
    const docId = ok(await t.request('POST', '/api/v1/article', { body: { title: 'Hostile' } }), 'insert').body.cmsDocId;
    draft = `/api/v1/article/${docId}:en:draft`;
  });
  after(() => t.close());

  it('refuses schedule times past year 9999 and bodies that are no JSON object, scheduling nothing', async () => {
    const before = ok(await t.request('GET', draft), 'draft').body;
    const bodies = [
      { publishAt: '999999-01-01T00:00:00Z' },
      { publishAt: '+275760-09-13T00:00:00.000Z' },
      { publishAt: '-000001-01-01T00:00:00Z' },
      { publishAt: 'x'.repeat(100_000) },
      { unpublishAt: '2030-01-01T23:00:00+99:00' },
    ];
    for (const body of bodies) assertErrorShape(await t.request('POST', `${draft}/schedule`, { body }), 400, 'invalid', JSON.stringify(body).slice(0, 60));
    for (const payload of ['{"publishAt": ', '"2030-01-01T00:00:00Z"', 'null']) {
      assertErrorShape(await t.request('POST', `${draft}/schedule`, { payload, headers: json }), 400, 'invalid', payload);
    }
    const after = ok(await t.request('GET', draft), 'draft').body;
    assert.equal(after.scheduledPublish, undefined);
    assert.equal(after.scheduledUnpublish, undefined);
    assert.equal(after.updatedAt, before.updatedAt);
  });

  it('keeps neither the share key nor the schedules in history: an entry read after unsharing shows no key', async () => {
    const docId = ok(await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Keyed' } }), 'insert').body.cmsDocId;
    const keyed = `/api/v1/article/${docId}:en:draft`;
    const key = ok(await t.request('POST', `${keyed}/share`, { body: { share: true } }), 'share').body.cmsShareKey;
    ok(await t.request('POST', `${keyed}/schedule`, { body: { publishAt: '2099-01-01T00:00:00Z' } }), 'schedule');
    ok(await t.request('PATCH', keyed, { body: { title: 'Keyed, saved while shared' } }), 'save');
    ok(await t.request('POST', `${keyed}/share`, { body: { share: false } }), 'unshare');
    const entries = ok(await t.request('GET', `${keyed}/history`), 'history').body.results;
    assert.deepEqual(entries.map((entry: { action: string }) => entry.action), ['update', 'insert']);
    for (const entry of entries) {
      const res = ok(await t.request('GET', `${keyed}/history/${entry._id}`), entry.action);
      assert.ok(!res.text.includes(key), `${entry.action} shows the key`);
      assert.equal(res.body.document.cmsShareKey, undefined);
      assert.equal(res.body.document.scheduledPublish, undefined);
    }
    assert.equal(entries.length, 2);
    // The draft itself still shows its schedule.
    assert.equal(ok(await t.request('GET', keyed), 'draft').body.scheduledPublish.status, 'pending');
  });

  it('answers a history page far past the end with no entries, on both stores', async () => {
    const res = ok(await t.request('GET', `${draft}/history?page=999999999&perPage=100`), 'far page');
    assert.deepEqual(res.body, { pages: 1, currentPage: 999_999_999, nextCursor: null, results: [] });
  });
});

describe('The audit trail: filters refused before they reach the store', () => {
  let t: TestApp;
  const auditUrl = '/api/v1/@cms/audit';
  before(async () => {
    t = await startTestApp();
    ok(await t.request('POST', '/api/v1/article', { body: { title: 'Audited' } }), 'insert');
  });
  after(() => t.close());

  it('answers a page far past the end with no records (page × perPage past 2^31 included)', async () => {
    for (const query of ['page=999999999&perPage=100', 'page=21474838&perPage=100']) {
      const res = ok(await t.request('GET', `${auditUrl}?${query}`), query);
      assert.equal(res.body.pages, 1, query);
      assert.deepEqual(res.body.results, [], query);
    }
  });

  it('refuses unknown parameters, sorts, repeated or nested values and days that do not exist, as documented', async () => {
    const refusals: [string, string][] = [
      ['sort=-at', 'sort'],
      ['sort[at]=1', 'sort'],
      ['actorr=jane', 'actorr'],
      ['$where=1', '$where'],
      ['since=2026-02-30', 'since'],
      ['until=2026-04-31T10:00:00Z', 'until'],
      ['since=2026-13-01', 'since'],
      ['since=1e308', 'since'],
      ['until[]=2026-01-01', 'until'],
      ['page=1e308', 'page'],
      ['page=-1', 'page'],
      ['page=99999999999', 'page'],
      ['perPage=1e9', 'perPage'],
      ['perPage[]=1&perPage[]=2', 'perPage'],
      ['type[$ne]=x', 'type'],
      [`actor=${'x'.repeat(5000)}`, 'actor'],
    ];
    for (const [query, path] of refusals) {
      const res = await t.request('GET', `${auditUrl}?${query}`);
      assertErrorShape(res, 400, 'invalid', query.slice(0, 60));
      assert.equal(res.body.data.path, path, query.slice(0, 60));
    }
    // A real leap day is a day.
    ok(await t.request('GET', `${auditUrl}?since=2028-02-29&until=2028-03-01T00:00:00Z`), 'leap day');
  });

  it('refuses every caller but an admin with one 403, before any filter is read', async () => {
    const queries = ['', '?page=999999999&perPage=100', '?sort=-at', '?since=2026-02-30', '?actor=admin', `?actor=${'x'.repeat(5000)}`, '?page=-1'];
    for (const key of ['editor', 'contributor', 'guest', null] as const) {
      const plain = await t.request('GET', auditUrl, { key });
      assertErrorShape(plain, 403, 'forbidden', String(key));
      for (const query of queries) {
        const res = await t.request('GET', `${auditUrl}${query}`, { key });
        assert.equal(res.status, 403, `${key} ${query.slice(0, 40)}: ${res.text}`);
        assert.deepEqual(res.body, plain.body, `${key} ${query.slice(0, 40)}`);
      }
    }
  });
});
