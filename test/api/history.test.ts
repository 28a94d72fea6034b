import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isoDate, startTestApp, testConfig, type TestApp, type TestResponse, signedInUser } from '../helpers/test-app.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/*
 * Document history (issue 25, part 1): an entry per saved change of a version, in the change's
 * transaction; autosaves merged; the list, one entry, and restore; roles; retention by count and
 * age; a deleted document's history gone. Runs on the store the API tests run on (SQLite, or
 * PostgreSQL with CMS_TEST_API_DATABASE=postgres).
 */

type Headers = Record<string, string>;

function ok(res: TestResponse, what: string): TestResponse {
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  return res;
}

async function published(t: TestApp, title: string, type = 'article'): Promise<string> {
  return ok(await t.request('POST', `/api/v1/${type}`, { body: { title } }), 'insert').body.cmsDocId as string;
}

async function historyOf(t: TestApp, path: string, options: { key?: 'admin' | 'editor' | 'contributor' | 'guest' | null; headers?: Headers } = {}): Promise<TestResponse> {
  return t.request('GET', path, options);
}

async function actions(t: TestApp, docId: string, locale = 'en'): Promise<string[]> {
  const res = ok(await historyOf(t, `/api/v1/article/${docId}:${locale}:draft/history?perPage=100`), 'history');
  return res.body.results.map((entry: { action: string }) => entry.action);
}

/** The store the app runs on, opened beside it: for what HTTP cannot do (an entry saved days ago). */
async function openStore(t: TestApp) {
  return createStorage(t.databaseUrl, { attachmentsGenerationKey, writesPerCommit: 1, walCheckpointPages: 1000 });
}

describe('History: an entry per saved change', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('records insert, update, publish, unpublish, both reverts, archive, restore and localize, newest first, with who, when and the mode', async () => {
    const docId = await published(t, 'Kinds');
    const draft = `/api/v1/article/${docId}:en:draft`;
    ok(await t.request('PATCH', draft, { body: { title: 'Kinds 2' } }), 'update');
    ok(await t.request('POST', `${draft}/publish`), 'publish');
    ok(await t.request('PATCH', draft, { body: { title: 'Kinds 3' } }), 'update');
    ok(await t.request('POST', `${draft}/revert-draft-to-published`), 'revert draft');
    ok(await t.request('POST', `${draft}/revert-published-to-previous`), 'revert published');
    ok(await t.request('POST', `${draft}/unpublish`), 'unpublish');
    ok(await t.request('PATCH', draft, { body: { archived: true } }), 'archive');
    ok(await t.request('PATCH', draft, { body: { archived: false } }), 'restore');
    ok(await t.request('POST', `${draft}/localize`, { body: { toLocale: 'es' } }), 'localize');
    assert.deepEqual(await actions(t, docId), [
      'restore',
      'archive',
      'unpublish',
      'revert-published-to-previous',
      'revert-draft-to-published',
      'update',
      'publish',
      'update',
      'insert',
    ]);
    assert.deepEqual(await actions(t, docId, 'es'), ['localize']);
    const res = ok(await historyOf(t, `${draft}/history`), 'history');
    assert.equal(res.headers['cache-control'], 'private, no-store');
    assert.equal(res.body.currentPage, 1);
    assert.equal(res.body.pages, 1);
    const [newest] = res.body.results;
    assert.deepEqual(Object.keys(newest).sort(), ['_id', 'action', 'cmsMode', 'createdAt', 'updatedBy']);
    assert.match(newest._id, /^[a-z][a-z0-9]{23}$/);
    assert.match(newest.createdAt, isoDate);
    assert.deepEqual(newest.updatedBy, { _id: null, title: 'System Task', username: null });
    assert.equal(newest.cmsMode, 'draft');
    const publish = res.body.results.find((entry: { action: string }) => entry.action === 'publish');
    assert.equal(publish.cmsMode, 'published');
  });

  it('answers the content as the change left it, and the same list for the bare id and the published id of the locale', async () => {
    const docId = await published(t, 'First words');
    ok(await t.request('PATCH', `/api/v1/article/${docId}:en:draft`, { body: { title: 'Second words', category: 'news' } }), 'update');
    const list = ok(await historyOf(t, `/api/v1/article/${docId}/history`), 'bare id');
    const same = ok(await historyOf(t, `/api/v1/article/${docId}:en:published/history`), 'published id');
    assert.deepEqual(same.body, list.body);
    const [update, insert] = list.body.results;
    const old = ok(await historyOf(t, `/api/v1/article/${docId}/history/${insert._id}`), 'entry');
    assert.equal(old.headers['cache-control'], 'private, no-store');
    assert.deepEqual({ ...old.body, document: undefined }, { ...insert, document: undefined });
    assert.equal(old.body.document.title, 'First words');
    assert.equal(old.body.document._id, `${docId}:en:published`);
    assert.equal(old.body.document.type, 'article');
    const newer = ok(await historyOf(t, `/api/v1/article/${docId}/history/${update._id}`), 'entry');
    assert.equal(newer.body.document.title, 'Second words');
    assert.equal(newer.body.document.category, 'news');
  });

  it('removes the history of a document deleted in a locale, and keeps that of its other locales', async () => {
    const docId = await published(t, 'Gone soon');
    ok(await t.request('POST', `/api/v1/article/${docId}/localize`, { body: { toLocale: 'es' } }), 'localize');
    ok(await t.request('DELETE', `/api/v1/article/${docId}:en:draft`), 'delete');
    assert.equal((await historyOf(t, `/api/v1/article/${docId}:en:draft/history`)).status, 404);
    assert.deepEqual(await actions(t, docId, 'es'), ['localize']);
    const store = await openStore(t);
    try {
      const left = await store.history.list({ type: 'article', docId, locale: 'en' }, { skip: 0, limit: 10 });
      assert.deepEqual(left, { total: 0, entries: [] });
    } finally {
      await store.close();
    }
  });

  it('never merges a save into the entry of another role, though API keys all save as "System Task"', async () => {
    const docId = await published(t, 'Keyed');
    const draft = `/api/v1/article/${docId}:en:draft`;
    ok(await t.request('PATCH', draft, { body: { title: 'By the admin key' } }), 'admin');
    ok(await t.request('PATCH', draft, { key: 'contributor', body: { title: 'By the contributor key' } }), 'contributor');
    const [newest, older] = ok(await historyOf(t, `${draft}/history`), 'history').body.results;
    assert.deepEqual([newest.action, older.action], ['update', 'update']);
    assert.equal(ok(await historyOf(t, `${draft}/history/${older._id}`), 'entry').body.document.title, 'By the admin key');
  });

  it('records the draft unpublished when its published version is deleted', async () => {
    const docId = await published(t, 'Taken down');
    ok(await t.request('DELETE', `/api/v1/article/${docId}:en:published`), 'delete published');
    assert.deepEqual(await actions(t, docId), ['unpublish', 'insert']);
  });

  it('makes a refused write leave no entry (412, 409)', async () => {
    const docId = await published(t, 'Refused');
    const draft = `/api/v1/article/${docId}:en:draft`;
    const before = await actions(t, docId);
    const stale = await t.request('PATCH', draft, { body: { title: 'Never' }, headers: { 'if-match': '"d1.stale"' } });
    assert.equal(stale.status, 412, stale.text);
    assert.deepEqual(await actions(t, docId), before);
  });
});

describe('History: autosaves merged', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_HISTORY_MERGE_SECONDS: '1' });
  });
  after(() => t.close());

  it('merges the saves of one user to one draft within the window into the newest entry, its content the last save', async () => {
    const ann = await signedInUser(t, 'ann', 'editor');
    const bob = await signedInUser(t, 'bob', 'editor');
    const docId = await published(t, 'Autosaved');
    const draft = `/api/v1/article/${docId}:en:draft`;
    for (const title of ['A1', 'A2', 'A3']) ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: { title } }), title);
    assert.deepEqual(await actions(t, docId), ['update', 'insert']);
    const merged = ok(await historyOf(t, `${draft}/history`), 'history').body.results[0];
    assert.deepEqual(merged.updatedBy, { _id: ann.id, title: ann.title, username: 'ann' });
    const content = ok(await historyOf(t, `${draft}/history/${merged._id}`), 'entry');
    assert.equal(content.body.document.title, 'A3');
    // Another user, another kind of change, or the window passed: a new entry.
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { title: 'B1' } }), 'bob');
    assert.deepEqual(await actions(t, docId), ['update', 'update', 'insert']);
    ok(await t.request('POST', `${draft}/publish`, { key: null, headers: bob.headers }), 'publish');
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { title: 'B2' } }), 'bob after publish');
    assert.deepEqual(await actions(t, docId), ['update', 'publish', 'update', 'update', 'insert']);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    ok(await t.request('PATCH', draft, { key: null, headers: bob.headers, body: { title: 'B3' } }), 'bob later');
    assert.deepEqual(await actions(t, docId), ['update', 'update', 'publish', 'update', 'update', 'insert']);
  });
});

describe('History: pages, entries, restore', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, unknown>;
    modules.locker = { extend: '@cms/piece-type', options: { label: 'Locker' }, fields: { add: { code: { type: 'password' } } } };
    t = await startTestApp(config, { CMS_LIMIT_HISTORY_MERGE_SECONDS: '0' });
  });
  after(() => t.close());

  async function withSaves(titles: readonly string[]): Promise<{ docId: string; draft: string }> {
    const docId = await published(t, 'Saved 0');
    const draft = `/api/v1/article/${docId}:en:draft`;
    for (const title of titles) ok(await t.request('PATCH', draft, { body: { title } }), title);
    return { docId, draft };
  }

  it('pages as a list: perPage, pages, currentPage; a page past the end is empty; perPage is capped at 100', async () => {
    const { draft } = await withSaves(['Saved 1', 'Saved 2', 'Saved 3', 'Saved 4']);
    const first = ok(await historyOf(t, `${draft}/history?perPage=2`), 'page 1');
    assert.equal(first.body.pages, 3);
    assert.equal(first.body.currentPage, 1);
    assert.equal(first.body.results.length, 2);
    const third = ok(await historyOf(t, `${draft}/history?perPage=2&page=3`), 'page 3');
    assert.deepEqual(third.body.results.map((entry: { action: string }) => entry.action), ['insert']);
    const all = ok(await historyOf(t, `${draft}/history?perPage=100`), 'all').body.results.map((entry: { _id: string }) => entry._id);
    const paged = [...first.body.results, ...ok(await historyOf(t, `${draft}/history?perPage=2&page=2`), 'page 2').body.results, ...third.body.results];
    assert.deepEqual(paged.map((entry: { _id: string }) => entry._id), all);
    const past = ok(await historyOf(t, `${draft}/history?perPage=2&page=9`), 'past');
    assert.deepEqual(past.body, { pages: 3, currentPage: 9, nextCursor: null, results: [] });
    const farPast = ok(await historyOf(t, `${draft}/history?perPage=100&page=999999999`), 'far past');
    assert.deepEqual(farPast.body, { pages: 1, currentPage: 999999999, nextCursor: null, results: [] });
    const capped = ok(await historyOf(t, `${draft}/history?perPage=100000`), 'capped');
    assert.equal(capped.body.results.length, 5);
    assert.equal(capped.body.pages, 1);
  });

  it('restores an entry into the draft: a restore-history entry, the draft modified, the published version untouched, nothing published', async () => {
    const { docId, draft } = await withSaves(['Saved 1', 'Saved 2']);
    const results = ok(await historyOf(t, `${draft}/history`), 'history').body.results;
    const saved1 = results.find((entry: { action: string }, index: number) => entry.action === 'update' && index === 1);
    const restored = ok(await t.request('POST', `${draft}/history/${saved1._id}/restore`), 'restore');
    assert.equal(restored.body._id, `${docId}:en:draft`);
    assert.equal(restored.body.title, 'Saved 1');
    assert.equal(restored.body.modified, true);
    assert.equal(typeof restored.headers.etag, 'string');
    assert.deepEqual(await actions(t, docId), ['restore-history', 'update', 'update', 'insert']);
    const live = ok(await t.request('GET', `/api/v1/article/${docId}:en:published`), 'published');
    assert.equal(live.body.title, 'Saved 0');
    const read = ok(await t.request('GET', draft), 'draft');
    assert.equal(read.body.title, 'Saved 1');
    // The restore's own entry holds the restored content.
    const newest = ok(await historyOf(t, `${draft}/history`), 'history').body.results[0];
    assert.equal(ok(await historyOf(t, `${draft}/history/${newest._id}`), 'entry').body.document.title, 'Saved 1');
  });

  it('keeps, on a restore and on a localize with update, each relationship the caller may not read as stored now, as a PATCH does', async () => {
    const user = async (username: string) => ok(await t.request('POST', '/api/v1/@cms/user', { body: { title: username, username, password: `${username}-password-123` } }), username).body._id as string;
    const [ann, bob] = [await user('ann-author'), await user('bob-author')];
    const docId = ok(await t.request('POST', '/api/v1/article', { body: { title: 'Authored 1', _author: [{ _id: ann }] } }), 'insert').body.cmsDocId as string;
    const draft = `/api/v1/article/${docId}:en:draft`;
    ok(await t.request('PATCH', draft, { body: { title: 'Authored 2', _author: [{ _id: bob }] } }), 'update');
    const insert = ok(await historyOf(t, `${draft}/history`), 'history').body.results.at(-1);
    // A contributor may not read @cms/user: its restore brings the old title back, not the old author.
    ok(await t.request('POST', `${draft}/history/${insert._id}/restore`, { key: 'contributor' }), 'restore');
    const restored = ok(await t.request('GET', draft), 'draft').body;
    assert.deepEqual([restored.title, restored.authorIds], ['Authored 1', [bob]]);
    ok(await t.request('POST', `${draft}/localize`, { body: { toLocale: 'es' } }), 'localize');
    const es = `/api/v1/article/${docId}:es:draft`;
    ok(await t.request('PATCH', es, { body: { title: 'Autor', _author: [{ _id: ann }] } }), 'es author');
    ok(await t.request('POST', `${draft}/localize`, { key: 'contributor', body: { toLocale: 'es', update: true } }), 'localize again');
    const localized = ok(await t.request('GET', es), 'es draft').body;
    assert.deepEqual([localized.title, localized.authorIds], ['Authored 1', [ann]]);
  });

  it('keeps no password hash in an entry, and a restore, even of an entry that holds one, leaves the hash stored now', async () => {
    const docId = ok(await t.request('POST', '/api/v1/locker', { body: { title: 'Locked 1', code: 'first-secret-1' } }), 'insert').body.cmsDocId as string;
    const draft = `/api/v1/locker/${docId}:en:draft`;
    ok(await t.request('PATCH', draft, { body: { title: 'Locked 2', code: 'second-secret-2' } }), 'update');
    const entries = ok(await historyOf(t, `/api/v1/locker/${docId}/history`), 'history').body.results;
    const store = await openStore(t);
    const storedCode = async () => (await store.documents.find({ type: 'locker', ids: [`${docId}:en:draft`], limit: 1 }))[0]!.code;
    try {
      const hash = await storedCode();
      assert.match(String(hash), /^scrypt/);
      const scope = { type: 'locker', docId, locale: 'en' };
      for (const { _id } of entries) assert.equal('code' in (await store.history.get(scope, _id))!.data, false);
      // An entry as written before entries left hashes out.
      const first = (await store.history.get(scope, entries.at(-1)._id))!;
      await store.history.append({ ...first, _id: 'hashedentry0000000000000', createdAt: Date.now(), data: { ...first.data, code: 'an-old-hash' } });
      ok(await t.request('POST', `${draft}/history/hashedentry0000000000000/restore`), 'restore');
      assert.equal(ok(await t.request('GET', draft), 'draft').body.title, 'Locked 1');
      assert.equal(await storedCode(), hash);
    } finally {
      await store.close();
    }
  });

  it('refuses a restore whose If-Match names a version changed since (412) or a draft another tab locks (409): nothing written', async () => {
    const { docId, draft } = await withSaves(['Saved 1']);
    const etag = ok(await t.request('GET', draft), 'draft').headers.etag as string;
    const [, insert] = ok(await historyOf(t, `${draft}/history`), 'history').body.results;
    ok(await t.request('PATCH', draft, { body: { title: 'Saved 2' } }), 'another save');
    const stale = await t.request('POST', `${draft}/history/${insert._id}/restore`, { headers: { 'if-match': etag } });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.name, 'changed');
    const ann = await signedInUser(t, 'ann', 'editor');
    ok(await t.request('PATCH', draft, { key: null, headers: ann.headers, body: { _advisoryLock: { tabId: 'ann-tab', lock: true } } }), 'lock');
    const locked = await t.request('POST', `${draft}/history/${insert._id}/restore`, { body: { _advisoryLock: { tabId: 'other-tab', lock: true } } });
    assert.equal(locked.status, 409, locked.text);
    assert.equal(locked.body.name, 'locked');
    assert.equal(ok(await t.request('GET', draft), 'draft').body.title, 'Saved 2');
    assert.deepEqual(await actions(t, docId), ['update', 'update', 'insert']);
    const current = ok(await t.request('GET', draft), 'draft').headers.etag as string;
    ok(await t.request('POST', `${draft}/history/${insert._id}/restore`, { headers: { 'if-match': current }, body: { _advisoryLock: { tabId: 'other-tab', lock: true, force: true } } }), 'forced');
  });

  it('answers 404 for an entry of another document, locale or type, and for a document of another type', async () => {
    const a = await withSaves([]);
    const b = await withSaves([]);
    const [entryA] = ok(await historyOf(t, `${a.draft}/history`), 'a').body.results;
    assert.equal((await historyOf(t, `${b.draft}/history/${entryA._id}`)).status, 404);
    assert.equal((await t.request('POST', `${b.draft}/history/${entryA._id}/restore`)).status, 404);
    ok(await t.request('POST', `${a.draft}/localize`, { body: { toLocale: 'es' } }), 'localize');
    assert.equal((await historyOf(t, `/api/v1/article/${a.docId}:es:draft/history/${entryA._id}`)).status, 404);
    assert.equal((await historyOf(t, `/api/v1/note/${a.docId}:en:draft/history`)).status, 404);
    assert.equal((await historyOf(t, `/api/v1/note/${a.docId}:en:draft/history/${entryA._id}`)).status, 404);
    assert.equal((await t.request('POST', `/api/v1/note/${a.docId}:en:draft/history/${entryA._id}/restore`)).status, 404);
    assert.equal((await historyOf(t, `/api/v1/article/nosuchdocumentatall0000000/history`)).status, 404);
    assert.equal((await historyOf(t, `${a.draft}/history/abcdefghijklmnopqrstuvwx`)).status, 404);
  });

  it('refuses hostile ids and parameters with a 400 and changes nothing', async () => {
    const { docId, draft } = await withSaves([]);
    const [entry] = ok(await historyOf(t, `${draft}/history`), 'history').body.results;
    const refusals = [
      `${draft}/history?page=0`,
      `${draft}/history?page=abc`,
      `${draft}/history?perPage=-1`,
      `${draft}/history?page=1e400`,
      `${draft}/history?page[]=1&page[]=2`,
      `${draft}/history?page[x]=1`,
      `${draft}/history?cmsLocale=xx`,
      `${draft}/history/__proto__`,
      `${draft}/history/${'a'.repeat(201)}`,
      `${draft}/history/${entry._id.toUpperCase()}`,
      `${draft}/history/${entry._id}x`,
      `/api/v1/@cms/user/${docId}/history`,
    ];
    for (const url of refusals) {
      const res = await historyOf(t, url);
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.equal(typeof res.body.name, 'string');
    }
    for (const payload of ['[]', '"text"', '{"_advisoryLock": 1}', '{"__proto__": {"x": 1}, "_advisoryLock": []}']) {
      const res = await t.request('POST', `${draft}/history/${entry._id}/restore`, { payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, `${payload}: ${res.text}`);
    }
    assert.deepEqual(await actions(t, docId), ['insert']);
  });
});

describe('History: roles', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, { options: Record<string, unknown> }>;
    modules.note!.options.editRole = 'editor';
    t = await startTestApp(config);
  });
  after(() => t.close());

  it('needs edit permission on the type to read or restore: the refusals of other edit routes', async () => {
    const docId = await published(t, 'Guarded', 'note');
    const draft = `/api/v1/note/${docId}:en:draft`;
    const [entry] = ok(await historyOf(t, `${draft}/history`), 'admin').body.results;
    ok(await historyOf(t, `${draft}/history`, { key: 'editor' }), 'editor reads');
    ok(await historyOf(t, `${draft}/history/${entry._id}`, { key: 'editor' }), 'editor reads one');
    for (const key of [null, 'guest', 'contributor'] as const) {
      const edit = await t.request('PATCH', draft, { key, body: { title: 'Nope' } });
      assert.ok(edit.status === 401 || edit.status === 403 || edit.status === 404, edit.text);
      const list = await historyOf(t, `${draft}/history`, { key });
      const one = await historyOf(t, `${draft}/history/${entry._id}`, { key });
      const restore = await t.request('POST', `${draft}/history/${entry._id}/restore`, { key });
      for (const res of [list, one, restore]) {
        assert.equal(res.status, edit.status, `${key}: ${res.text}`);
        assert.equal(res.body.name, edit.body.name);
      }
    }
    ok(await t.request('POST', `${draft}/history/${entry._id}/restore`, { key: 'editor' }), 'editor restores');
  });
});

describe('History: retention', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, { options: Record<string, unknown> }>;
    modules.note!.options.history = { maxEntries: 3, maxPublishEntries: 2, maxAgeDays: 2 };
    t = await startTestApp(config, { CMS_LIMIT_HISTORY_MERGE_SECONDS: '0', CMS_LIMIT_HISTORY_MAX_ENTRIES: '4' });
  });
  after(() => t.close());

  async function noteActions(docId: string): Promise<string[]> {
    return ok(await historyOf(t, `/api/v1/note/${docId}/history`), 'history').body.results.map((entry: { action: string }) => entry.action);
  }

  it('keeps the first entry and the type\'s maxEntries newest changes, and the global default for other types', async () => {
    const note = await published(t, 'Counted', 'note');
    for (const text of ['1', '2', '3', '4']) ok(await t.request('PATCH', `/api/v1/note/${note}:en:draft`, { body: { text } }), text);
    assert.deepEqual(await noteActions(note), ['update', 'update', 'update', 'insert']);
    const article = await published(t, 'Counted');
    for (const title of ['1', '2', '3', '4', '5']) ok(await t.request('PATCH', `/api/v1/article/${article}:en:draft`, { body: { title } }), title);
    assert.deepEqual(await actions(t, article), ['update', 'update', 'update', 'update', 'insert']);
  });

  it('keeps the first entry, every publish kept and a higher role\'s changes however often a lower role saves; each role\'s share bounded', async () => {
    const ed = await signedInUser(t, 'ed', 'editor');
    const cal = await signedInUser(t, 'cal', 'contributor');
    const note = await published(t, 'Guarded', 'note');
    const draft = `/api/v1/note/${note}:en:draft`;
    for (const text of ['ed 1', 'ed 2', 'ed 3']) {
      ok(await t.request('PATCH', draft, { key: null, headers: ed.headers, body: { text } }), text);
      ok(await t.request('POST', `${draft}/publish`, { key: null, headers: ed.headers }), `publish ${text}`);
    }
    // A contributor saving over and over (merging is off here) pushes out its own oldest changes only.
    for (let save = 0; save < 8; save++) ok(await t.request('PATCH', draft, { key: null, headers: cal.headers, body: { text: `cal ${save}` } }), `cal ${save}`);
    const list = ok(await historyOf(t, `${draft}/history?perPage=100`), 'history').body.results;
    const kept = list.map((entry: { action: string; updatedBy: { username: string | null } }) => `${entry.action} ${entry.updatedBy.username ?? 'key'}`);
    // maxEntries 3 per role, maxPublishEntries 2 per role (the first publish went), the first entry always.
    assert.deepEqual(kept, ['update cal', 'update cal', 'update cal', 'publish ed', 'update ed', 'publish ed', 'update ed', 'update ed', 'insert key']);
    const newest = ok(await historyOf(t, `${draft}/history/${list[0]._id}`), 'newest').body.document;
    assert.equal(newest.text, 'cal 7');
  });

  it('drops the entries older than maxAgeDays at the document\'s next change', async () => {
    const note = await published(t, 'Aged', 'note');
    const store = await openStore(t);
    const scope = { type: 'note', docId: note, locale: 'en' };
    try {
      const head = (await store.history.latest(scope))!;
      const latest = { ...(await store.history.get(scope, head._id))! };
      const old = Date.now() - 3 * 86_400_000;
      await store.history.append({ ...latest, _id: 'oldentry0000000000000000', action: 'update', createdAt: old, startedAt: old, pool: 'change:admin' });
      await store.history.append({ ...latest, _id: 'recententry0000000000000', action: 'publish', createdAt: Date.now() - 86_400_000, startedAt: old, pool: 'publish:admin' });
    } finally {
      await store.close();
    }
    assert.deepEqual(await noteActions(note), ['insert', 'publish', 'update']);
    ok(await t.request('PATCH', `/api/v1/note/${note}:en:draft`, { body: { text: 'now' } }), 'save');
    assert.deepEqual(await noteActions(note), ['update', 'insert', 'publish']);
  });

  it('refuses a history option out of bounds at boot', async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, { options: Record<string, unknown> }>;
    modules.note!.options.history = { maxEntries: -1 };
    await assert.rejects(startTestApp(config), /history/);
  });
});
