import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { startTestApp, testConfig, type TestApp, type keys } from '../helpers/test-app.js';

/*
 * GET /api/v1/<type>/sync and /api/v1/@cms/sync: every readable document in pages, then what
 * changed since with tombstones, by the list's rules; tokens bound to who asks and how.
 */

type Key = keyof typeof keys | null;
interface Synced {
  items: Record<string, unknown>[];
  deleted: { _id: string; reason: string; cmsDocId: string; cmsLocale: string | null; deletedAt: string; type: string }[];
  token: string;
  pages: number;
}

describe('the sync API', () => {
  let t: TestApp;
  let storage: StorageAdapter | undefined;
  before(async () => {
    t = await startTestApp(testConfig(), {}, { wrapStorage: (adapter) => (storage = adapter) });
  });
  after(async () => {
    await t.close();
  });

  /** Every page from `token` (none: from scratch) until the answer says it caught up. */
  async function syncAll(path: string, key: Key, token?: string): Promise<Synced> {
    const result: Synced = { items: [], deleted: [], token: '', pages: 0 };
    for (let next = token; ; ) {
      const joiner = path.includes('?') ? '&' : '?';
      const res = await t.request('GET', next === undefined ? path : `${path}${joiner}syncToken=${encodeURIComponent(next)}`, { key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      result.items.push(...res.body.items);
      result.deleted.push(...res.body.deleted);
      result.pages++;
      if (res.body.nextSyncToken) return { ...result, token: res.body.nextSyncToken };
      next = res.body.nextPageToken;
      assert.ok(next, 'a page names the next page or the next sync');
    }
  }

  async function article(body: Record<string, unknown>, mode = 'published'): Promise<{ docId: string; id: string }> {
    const res = await t.request('POST', `/api/v1/article?cmsMode=${mode}`, { body });
    assert.equal(res.status, 200, res.text);
    return { docId: res.body.cmsDocId, id: res.body._id };
  }

  const published = (docId: string) => `${docId}:en:published`;

  it('walks every readable document in pages, then answers only what changed, with a tombstone for each reason', async () => {
    const category = 'walk';
    const docs: { docId: string; id: string }[] = [];
    for (let index = 0; index < 5; index++) docs.push(await article({ title: `Walked ${index}`, category, priority: 7 }));
    const draftOnly = await article({ title: 'Never published', category }, 'draft');
    const privateOne = await article({ title: 'Members only', category, visibility: 'loginRequired' });
    const path = `/api/v1/article/sync?category=${category}&limit=2`;

    const first = await syncAll(path, null);
    assert.equal(first.pages, 3);
    assert.deepEqual(first.items.map((item) => item._id).sort(), docs.map((doc) => doc.id).sort());
    assert.deepEqual(first.deleted, []);
    for (const item of first.items) assert.equal(item.priority, undefined, 'the public projection hides priority');
    const editorFirst = await syncAll(path, 'editor');
    assert.equal(editorFirst.items.length, 6, 'an editor reads the members-only article too');
    assert.equal(editorFirst.items.find((item) => item._id === docs[0]!.id)!.priority, 7);

    // Nothing changed: an empty delta, and a token that still works.
    const idle = await syncAll(path, null, first.token);
    assert.deepEqual([idle.items, idle.deleted], [[], []]);

    const inserted = await article({ title: 'Inserted later', category });
    assert.equal((await t.request('PATCH', `/api/v1/article/${docs[0]!.id}`, { body: { title: 'Walked again' } })).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${draftOnly.id}/publish`)).status, 200);
    const changed = await syncAll(path, null, idle.token);
    assert.deepEqual(changed.items.map((item) => item._id).sort(), [inserted.id, docs[0]!.id, published(draftOnly.docId)].sort());
    assert.equal(changed.items.find((item) => item._id === docs[0]!.id)!.title, 'Walked again');
    assert.deepEqual(changed.deleted, []);

    assert.equal((await t.request('DELETE', `/api/v1/article/${docs[1]!.id}`)).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${docs[2]!.id}/unpublish`)).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${docs[3]!.id}`, { body: { archived: true } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${docs[4]!.id}`, { body: { visibility: 'loginRequired' } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${inserted.id}`, { body: { category: 'elsewhere' } })).status, 200);
    // Changes to what the anonymous caller never could read: never named to it.
    assert.equal((await t.request('PATCH', `/api/v1/article/${privateOne.id}`, { body: { title: 'Members only, again' } })).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/article/${privateOne.id}`)).status, 200);
    const secret = await article({ title: 'A draft nobody published', category }, 'draft');
    assert.equal((await t.request('DELETE', `/api/v1/article/${secret.id}`)).status, 200);

    const gone = await syncAll(path, null, changed.token);
    assert.deepEqual(gone.items, []);
    const reasons = Object.fromEntries(gone.deleted.map((tombstone) => [tombstone._id, tombstone.reason]));
    assert.deepEqual(reasons, {
      [docs[1]!.id]: 'deleted',
      [docs[2]!.id]: 'unpublished',
      [docs[3]!.id]: 'archived',
      [docs[4]!.id]: 'hidden',
      [inserted.id]: 'hidden',
    });
    const text = JSON.stringify(gone);
    for (const never of [privateOne.docId, secret.docId]) assert.ok(!text.includes(never), `${never} is never named to an anonymous caller`);
    const tombstone = gone.deleted.find((one) => one._id === docs[1]!.id)!;
    assert.deepEqual(Object.keys(tombstone).sort(), ['_id', 'cmsDocId', 'cmsLocale', 'deletedAt', 'reason', 'type']);
    assert.deepEqual([tombstone.cmsDocId, tombstone.cmsLocale, tombstone.type], [docs[1]!.docId, 'en', 'article']);

    // The editor, from its own first sync: the members-only article's delete is its to hear of.
    const editorGone = await syncAll(path, 'editor', editorFirst.token);
    assert.equal(editorGone.deleted.find((one) => one._id === privateOne.id)?.reason, 'deleted');
    assert.equal(editorGone.items.find((item) => item._id === docs[4]!.id)?.visibility, 'loginRequired');
  });

  it('gives an editor its drafts in draft mode, and refuses drafts to anonymous callers', async () => {
    const category = 'drafts';
    const draft = await article({ title: 'Draft to sync', category }, 'draft');
    const path = `/api/v1/article/sync?category=${category}&cmsMode=draft`;
    const first = await syncAll(path, 'editor');
    assert.deepEqual(first.items.map((item) => item._id), [draft.id]);
    assert.equal((await t.request('PATCH', `/api/v1/article/${draft.id}`, { body: { title: 'Draft changed' } })).status, 200);
    const changed = await syncAll(path, 'editor', first.token);
    assert.deepEqual(changed.items.map((item) => item.title), ['Draft changed']);
    assert.equal((await t.request('GET', path, { key: null })).status, 403);
    assert.equal((await t.request('GET', '/api/v1/note/sync', { key: null })).status, 404);
  });

  it('syncs every readable type at once, or those `type` names', async () => {
    const note = await t.request('POST', '/api/v1/note', { body: { title: 'A note to sync' } });
    const all = await syncAll('/api/v1/@cms/sync?limit=1000', 'admin');
    const types = new Set(all.items.map((item) => item.type));
    assert.ok(types.has('note') && types.has('article'), [...types].join());
    const notes = await syncAll('/api/v1/@cms/sync?type=note', 'admin');
    assert.deepEqual([...new Set(notes.items.map((item) => item.type))], ['note']);
    const anonymous = await syncAll('/api/v1/@cms/sync', null);
    assert.ok(!anonymous.items.some((item) => item.type === 'note' || item._id === note.body._id));
    assert.equal((await t.request('GET', '/api/v1/@cms/sync?type=nosuchtype')).status, 404);
  });

  it('refuses a token used by another caller, route or filters, or changed; and one the log no longer covers with 410', async () => {
    const { token } = await syncAll('/api/v1/article/sync?category=tokens', null);
    const use = (path: string, key: Key, value = token) => t.request('GET', `${path}${path.includes('?') ? '&' : '?'}syncToken=${encodeURIComponent(value)}`, { key });
    assert.equal((await use('/api/v1/article/sync?category=tokens', null)).status, 200);
    const cases: [string, Key, string, string][] = [
      ['/api/v1/article/sync?category=tokens', 'editor', token, 'another caller'],
      ['/api/v1/article/sync?category=other', null, token, 'other filters'],
      ['/api/v1/article/sync?category=tokens&cmsLocale=es', null, token, 'another cmsLocale'],
      ['/api/v1/@cms/sync?category=tokens', null, token, 'another route'],
      ['/api/v1/article/sync?category=tokens', null, `${token.slice(0, -3)}AAA`, 'not a token'],
      ['/api/v1/article/sync?category=tokens', null, `x${token}`, 'not a token'],
      ['/api/v1/article/sync?category=tokens', null, 'garbage', 'not a token'],
    ];
    for (const [path, key, value, says] of cases) {
      const res = await use(path, key, value);
      assert.equal(res.status, 400, `${path} ${key}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.ok(res.body.message.includes(says), res.body.message);
    }
    // Every entry pruned, as retention would: the token's changes are gone.
    await article({ title: 'After the token', category: 'tokens' });
    await storage!.changes.prune(new Date(Date.now() + 3_600_000).toISOString(), 1_000_000);
    const expired = await use('/api/v1/article/sync?category=tokens', null);
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.name, 'expired');
    assert.match(expired.body.message, /sync again from scratch/);
  });

  it('refuses a limit out of bounds and the list parameters a sync does not take', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'limit=-1', 'limit=1.5', 'page=2', 'sort[title]=1', 'search=x', 'type=note', 'syncToken=']) {
      const res = await t.request('GET', `/api/v1/article/sync?${query}`, { key: null });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
    }
    assert.equal((await t.request('GET', '/api/v1/article/sync?limit=1000', { key: null })).status, 200);
  });
});
