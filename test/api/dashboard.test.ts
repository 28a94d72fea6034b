import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { cheapPasswordHasher, isoDate, signedInUser, startTestApp, testConfig, type SignedInUser, type TestApp } from '../helpers/test-app.js';

/*
 * GET /api/v1/@cms/dashboard (issue 35): the signed-in user's drafts with unpublished changes,
 * the recently changed documents and the pending schedules, each section read per piece type
 * through the list with the caller's rights and projection. Runs on PostgreSQL too
 * (CMS_TEST_API_DATABASE=postgres).
 */

const url = '/api/v1/@cms/dashboard';
const limit = 3;

/** `memo`: editors only, but its public projection (title, updatedAt) shows published memos to anyone. */
function dashboardConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  modules.memo = {
    extend: '@cms/piece-type',
    options: { label: 'Memo', viewRole: 'editor', editRole: 'editor', publishRole: 'editor', publicApiProjection: { title: 1, updatedAt: 1 } },
    fields: { add: { text: { type: 'string' } } },
  };
  return config;
}

/** Waits out the current millisecond, so that the next write has an `updatedAt` of its own and the order is certain. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve));
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('the dashboard: GET /api/v1/@cms/dashboard', () => {
  let t: TestApp;
  let alice: SignedInUser;
  let carl: SignedInUser;
  let gus: SignedInUser;
  let finds = 0;
  const ids: Record<string, string> = {};
  const times: Record<string, string> = {};
  const dashboardOf = (user: SignedInUser, query = '') => t.request('GET', `${url}${query}`, { key: null, headers: user.headers });

  /** A draft written by `user`; `publish`: published as well (by alice, an editor). */
  async function write(user: SignedInUser, type: string, name: string, options: { publish?: boolean } = {}): Promise<void> {
    await nextMillisecond();
    const created = await t.request('POST', `/api/v1/${type}?cmsMode=draft`, { key: null, headers: user.headers, body: { title: name } });
    assert.equal(created.status, 200, created.text);
    ids[name] = created.body.cmsDocId;
    if (options.publish) {
      await nextMillisecond();
      const published = await t.request('POST', `/api/v1/${type}/${ids[name]}:en:draft/publish`, { key: null, headers: alice.headers });
      assert.equal(published.status, 200, published.text);
    }
  }

  /** Changes the draft as `user`, leaving it with unpublished changes. */
  async function edit(user: SignedInUser, type: string, name: string, title: string): Promise<void> {
    await nextMillisecond();
    const changed = await t.request('PATCH', `/api/v1/${type}/${ids[name]}:en:draft`, { key: null, headers: user.headers, body: { title } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.modified, true);
  }

  async function schedule(type: string, name: string, body: Record<string, string>): Promise<void> {
    const res = await t.request('POST', `/api/v1/${type}/${ids[name]}:en:draft/schedule`, { key: null, headers: alice.headers, body });
    assert.equal(res.status, 200, res.text);
    for (const [key, at] of Object.entries(body)) times[`${name}:${key}`] = new Date(at).toISOString();
  }

  const countFinds = (adapter: StorageAdapter): StorageAdapter => {
    const find = adapter.documents.find.bind(adapter.documents);
    adapter.documents.find = (query) => {
      finds++;
      return find(query);
    };
    return adapter;
  };

  before(async () => {
    t = await startTestApp(dashboardConfig(), { CMS_LIMIT_DASHBOARD_ITEMS: String(limit) }, { passwordHasher: cheapPasswordHasher(), wrapStorage: countFinds });
    alice = await signedInUser(t, 'alice', 'editor');
    carl = await signedInUser(t, 'carl', 'contributor');
    gus = await signedInUser(t, 'gus', 'guest');
    // Oldest first. Alice: a never published draft, a published one changed again, one published
    // as it is (nothing unpublished), one changed again by Carl (his now), a memo.
    await write(alice, 'article', 'Draft only');
    await write(alice, 'article', 'Changed again', { publish: true });
    await edit(alice, 'article', 'Changed again', 'Changed again, twice');
    await write(alice, 'article', 'Published as is', { publish: true });
    await write(alice, 'article', 'Carl took over', { publish: true });
    await edit(carl, 'article', 'Carl took over', 'Carl took over it');
    await write(alice, 'note', 'A note');
    await write(alice, 'memo', 'Secret memo');
    await write(alice, 'memo', 'Public memo', { publish: true });
    await write(carl, 'note', 'Carl note');
    await schedule('article', 'Draft only', { publishAt: inHours(2) });
    await schedule('note', 'A note', { publishAt: inHours(1) });
    await schedule('memo', 'Secret memo', { publishAt: inHours(0.5) });
    await schedule('article', 'Published as is', { unpublishAt: inHours(3) });
    await schedule('article', 'Changed again', { publishAt: inHours(4) });
  });
  after(() => t?.close());

  const titles = (results: { title?: string }[]) => results.map((doc) => doc.title);

  it("answers the editor's own unpublished drafts, the latest changes and the soonest schedules, each section at most limits.dashboardItems", async () => {
    const res = await dashboardOf(alice);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(res.body).sort(), ['locale', 'myDrafts', 'needsMyReview', 'recentlyChanged', 'scheduled']);
    assert.equal(res.body.locale, 'en');
    // Newest first; not "Published as is" (nothing unpublished) nor "Carl took over" (Carl's change).
    assert.deepEqual(titles(res.body.myDrafts.results), ['Secret memo', 'A note', 'Changed again, twice']);
    const [memo] = res.body.myDrafts.results;
    assert.deepEqual(Object.keys(memo).sort(), ['_id', 'cmsDocId', 'cmsLocale', 'metaType', 'modified', 'title', 'type', 'updatedAt', 'updatedBy']);
    assert.equal(memo.type, 'memo');
    assert.equal(memo._id, `${ids['Secret memo']}:en:draft`);
    assert.equal(memo.modified, true);
    assert.equal(memo.lastPublishedAt, undefined, 'never published');
    assert.equal(memo.updatedBy._id, alice.id);
    assert.match(memo.updatedAt, isoDate);
    assert.deepEqual(titles(res.body.recentlyChanged.results), ['Carl note', 'Public memo', 'Secret memo']);
    assert.equal(res.body.recentlyChanged.results[0].updatedBy._id, carl.id);
    assert.deepEqual(
      res.body.scheduled.results.map((item: { action: string; at: string; document: { title: string; type: string } }) => [item.document.type, item.document.title, item.action, item.at]),
      [
        ['memo', 'Secret memo', 'publish', times['Secret memo:publishAt']],
        ['note', 'A note', 'publish', times['A note:publishAt']],
        ['article', 'Draft only', 'publish', times['Draft only:publishAt']],
      ],
    );
  });

  it('shows a contributor their own drafts only, and no type beyond their role except through its public projection', async () => {
    const res = await dashboardOf(carl);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(titles(res.body.myDrafts.results), ['Carl note', 'Carl took over it']);
    // The memo drafts stay hidden; the published memo shows only what the projection names.
    assert.deepEqual(titles(res.body.recentlyChanged.results), ['Carl note', 'Public memo', 'A note']);
    const memo = res.body.recentlyChanged.results[1];
    assert.deepEqual(Object.keys(memo).sort(), ['_id', 'metaType', 'title', 'type', 'updatedAt']);
    assert.equal(memo._id, `${ids['Public memo']}:en:published`);
    assert.deepEqual(
      res.body.scheduled.results.map((item: { document: { title: string } }) => item.document.title),
      ['A note', 'Draft only', 'Published as is'],
      'no memo schedule: its drafts are beyond a contributor',
    );
    assert.equal(res.body.scheduled.results[2].action, 'unpublish');
  });

  it('follows publishing: a published draft leaves my drafts, its schedule runs or goes', async () => {
    const published = await t.request('POST', `/api/v1/note/${ids['Carl note']}:en:draft/publish`, { key: null, headers: alice.headers });
    assert.equal(published.status, 200, published.text);
    const carls = await dashboardOf(carl);
    assert.deepEqual(titles(carls.body.myDrafts.results), ['Carl took over it']);
    const cancelled = await t.request('POST', `/api/v1/memo/${ids['Secret memo']}:en:draft/schedule`, { key: null, headers: alice.headers, body: { publishAt: null } });
    assert.equal(cancelled.status, 200, cancelled.text);
    const alices = await dashboardOf(alice);
    assert.deepEqual(alices.body.scheduled.results.map((item: { document: { title: string } }) => item.document.title), ['A note', 'Draft only', 'Published as is']);
  });

  it('reads the locale asked for: nothing is written in Spanish yet', async () => {
    const res = await dashboardOf(alice, '?cmsLocale=es');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { locale: 'es', myDrafts: { results: [] }, recentlyChanged: { results: [] }, scheduled: { results: [] }, needsMyReview: { results: [] } });
  });

  it('refuses a guest, an API key and an anonymous caller with 403, before reading anything', async () => {
    const guest = await dashboardOf(gus);
    assert.equal(guest.status, 403, guest.text);
    assert.deepEqual(Object.keys(guest.body).sort(), ['data', 'message', 'name']);
    assert.equal(guest.body.name, 'forbidden');
    assert.equal(guest.body.data.requiredRole, 'contributor');
    for (const key of ['admin', 'contributor'] as const) {
      const res = await t.request('GET', url, { key });
      assert.equal(res.status, 403, `${key}: ${res.text}`);
      assert.equal(res.body.name, 'forbidden');
    }
    const anonymous = await t.request('GET', url, { key: null });
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal((await t.request('GET', `${url}?cmsLocale=nope`, { key: null })).status, 403, 'the role before the parameters');
  });

  it('refuses hostile parameters with 400 in the one error shape', async () => {
    for (const query of ['?cmsLocale=xx', '?cmsLocale=en:draft', '?cmsLocale[]=en', '?perPage=1000', '?sort[updatedAt]=1', '?cmsLocale=en&cmsLocale=es']) {
      const res = await dashboardOf(alice, query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name'], query);
      assert.equal(res.body.name, 'invalid', query);
    }
  });

  it('reads per section and type, never per document: more documents cost no more reads', async () => {
    const readsOf = async () => {
      finds = 0;
      assert.equal((await dashboardOf(alice)).status, 200);
      return finds;
    };
    const before = await readsOf();
    for (const name of ['More one', 'More two', 'More three', 'More four']) {
      await write(alice, 'note', name);
      await schedule('note', name, { publishAt: inHours(0.1) });
    }
    // The schedules shown are now of one type instead of two: a read fewer.
    assert.equal(await readsOf(), before - 1);
    const res = await dashboardOf(alice);
    assert.deepEqual(titles(res.body.myDrafts.results), ['More four', 'More three', 'More two']);
    // Each scheduled a moment after the one before: the first three are the soonest.
    assert.deepEqual(res.body.scheduled.results.map((item: { document: { title: string } }) => item.document.title), ['More one', 'More two', 'More three']);
  });
});
