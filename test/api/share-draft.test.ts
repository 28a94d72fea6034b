import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentStore, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { createCmsClient, CmsError } from '../../src/client/index.js';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('sharing a draft: POST :_id/share, and the shared read by cmsShareId and cmsShareKey', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A published article whose draft has unpublished changes (`Draft title`). */
  async function publishedWithDraft(title: string) {
    const published = await t.request('POST', '/api/v1/article', { body: { title, category: 'live' } });
    assert.equal(published.status, 200, published.text);
    const draftId = `${published.body.cmsDocId}:en:draft`;
    const patched = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: `${title} (draft)`, category: 'unpublished' } });
    assert.equal(patched.status, 200, patched.text);
    return { docId: published.body.cmsDocId as string, draftId, publishedId: published.body._id as string };
  }

  async function share(id: string, share: unknown, options: { key?: 'admin' | 'editor' | 'contributor' | 'guest' | null; headers?: Record<string, string> } = {}) {
    return t.request('POST', `/api/v1/article/${id}/share`, { body: { share }, ...options });
  }

  const sharedRead = (id: string, key: string, extra = '') =>
    t.request('GET', `/api/v1/article/${id}?cmsShareId=${encodeURIComponent(id)}&cmsShareKey=${encodeURIComponent(key)}${extra}`, { key: null });

  it('shares a draft: the answer is the draft with a strong random cmsShareKey and an ETag; the key stays on a second share', async () => {
    const { draftId } = await publishedWithDraft('Shared One');
    const res = await share(draftId, true);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, draftId);
    assert.equal(res.body.title, 'Shared One (draft)');
    assert.match(res.body.cmsShareKey, /^[A-Za-z0-9_-]{43}$/);
    assert.match(String(res.headers.etag), /^"d[0-9a-z]+\./);
    const again = await share(draftId, true);
    assert.equal(again.body.cmsShareKey, res.body.cmsShareKey);
    const other = await publishedWithDraft('Shared Other');
    const otherKey = (await share(other.draftId, true)).body.cmsShareKey;
    assert.notEqual(otherKey, res.body.cmsShareKey);
    // Editors see the key on the draft; the published version never has one.
    const read = await t.request('GET', `/api/v1/article/${draftId}`);
    assert.equal(read.body.cmsShareKey, res.body.cmsShareKey);
    const published = await t.request('GET', `/api/v1/article/${draftId.replace(':draft', ':published')}`);
    assert.equal('cmsShareKey' in published.body, false);
  });

  it('an anonymous caller reads the shared draft with its key, uncached, and nothing else with it', async () => {
    const { draftId, publishedId, docId } = await publishedWithDraft('Preview Me');
    const key = (await share(draftId, true)).body.cmsShareKey as string;
    const res = await sharedRead(draftId, key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, draftId);
    assert.equal(res.body.title, 'Preview Me (draft)');
    assert.equal(res.body.category, 'unpublished');
    assert.equal('cmsShareKey' in res.body, false, 'the key is never shown to a caller who cannot edit');
    assert.equal('_edit' in res.body, false);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    // A second read is built again, not served from the shared cache (still private).
    const second = await sharedRead(draftId, key);
    assert.equal(second.status, 200);
    assert.equal(second.headers['cache-control'], 'private, no-store');
    // renderAreas applies as on any GET one.
    assert.equal((await sharedRead(draftId, key, '&renderAreas=1')).status, 200);

    // The key reads that draft only: not the published version, a bare id, another locale or mode, a list.
    const onPublished = await t.request('GET', `/api/v1/article/${publishedId}?cmsShareId=${draftId}&cmsShareKey=${key}`, { key: null });
    assert.equal(onPublished.status, 404);
    const publishedAsShared = await sharedRead(publishedId, key);
    assert.equal(publishedAsShared.status, 404);
    const bare = await t.request('GET', `/api/v1/article/${docId}?cmsShareId=${docId}&cmsShareKey=${key}`, { key: null });
    assert.equal(bare.status, 404);
    assert.equal((await sharedRead(draftId, key, '&cmsMode=published')).status, 404);
    assert.equal((await sharedRead(draftId, key, '&cmsLocale=es')).status, 404);
    assert.equal((await sharedRead(draftId, key, '&cmsLocale=en:draft')).status, 200);
    const list = await t.request('GET', `/api/v1/article?cmsShareId=${draftId}&cmsShareKey=${key}`, { key: null });
    assert.equal(list.status, 200);
    assert.equal(list.body.results.some((doc: { _id: string }) => doc._id === draftId), false);
    assert.equal(list.body.results.some((doc: { title: string }) => doc.title === 'Preview Me (draft)'), false);
    const draftList = await t.request('GET', `/api/v1/article?cmsMode=draft&cmsShareId=${draftId}&cmsShareKey=${key}`, { key: null });
    assert.equal(draftList.status, 403);
    const locales = await t.request('GET', `/api/v1/article/${draftId}/locales?cmsShareId=${draftId}&cmsShareKey=${key}`, { key: null });
    assert.deepEqual(locales.body.results.map((v: { cmsLocale: string }) => v.cmsLocale), ['en:published']);
    // The ordinary anonymous read of the draft is still refused.
    assert.equal((await t.request('GET', `/api/v1/article/${draftId}`, { key: null })).status, 403);
  });

  it('bogus keys, another draft\'s key, half a link and hostile query values read nothing', async () => {
    const first = await publishedWithDraft('Guarded');
    const second = await publishedWithDraft('Neighbour');
    const key = (await share(first.draftId, true)).body.cmsShareKey as string;
    const otherKey = (await share(second.draftId, true)).body.cmsShareKey as string;
    for (const bogus of ['', 'x', key.slice(0, -1), `${key}x`, key.toUpperCase(), otherKey]) {
      const res = await sharedRead(first.draftId, bogus);
      assert.equal(res.status, 404, `key ${JSON.stringify(bogus)}`);
      assert.equal(res.body.name, 'notfound');
    }
    // The key of one draft does not open another, whichever id the path names.
    assert.equal((await sharedRead(second.draftId, key)).status, 404);
    const crossed = await t.request('GET', `/api/v1/article/${second.draftId}?cmsShareId=${first.draftId}&cmsShareKey=${key}`, { key: null });
    assert.equal(crossed.status, 404);
    const noKey = await t.request('GET', `/api/v1/article/${first.draftId}?cmsShareId=${first.draftId}`, { key: null });
    assert.equal(noKey.status, 404);
    const noId = await t.request('GET', `/api/v1/article/${first.draftId}?cmsShareKey=${key}`, { key: null });
    assert.equal(noId.status, 404);
    const twoKeys = await t.request('GET', `/api/v1/article/${first.draftId}?cmsShareId=${first.draftId}&cmsShareKey=${key}&cmsShareKey=${key}`, { key: null });
    assert.equal(twoKeys.status, 400);
    const huge = await sharedRead(first.draftId, 'k'.repeat(5000));
    assert.equal(huge.status, 400);
    const objectKey = await t.request('GET', `/api/v1/article/${first.draftId}?cmsShareId=${first.draftId}&cmsShareKey[a]=1`, { key: null });
    assert.equal(objectKey.status, 400);
    // Another type's route does not read the article's draft.
    const otherType = await t.request('GET', `/api/v1/note/${first.draftId}?cmsShareId=${first.draftId}&cmsShareKey=${key}`, { key: null });
    assert.equal(otherType.status, 404);
  });

  it('unsharing takes the key away at once: the link reads nothing, a new share makes a new key', async () => {
    const { draftId } = await publishedWithDraft('Withdrawn');
    const key = (await share(draftId, true)).body.cmsShareKey as string;
    assert.equal((await sharedRead(draftId, key)).status, 200);
    const res = await share(draftId, false);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, draftId);
    assert.equal('cmsShareKey' in res.body, false);
    assert.equal((await sharedRead(draftId, key)).status, 404);
    const twice = await share(draftId, false);
    assert.equal(twice.status, 200);
    const again = (await share(draftId, true)).body.cmsShareKey as string;
    assert.notEqual(again, key);
    assert.equal((await sharedRead(draftId, key)).status, 404);
    assert.equal((await sharedRead(draftId, again)).status, 200);
  });

  it('a shared draft that is archived, or changed to loginRequired, is not read by its link', async () => {
    const archivedOne = await publishedWithDraft('Archived Share');
    const key = (await share(archivedOne.draftId, true)).body.cmsShareKey as string;
    await t.request('PATCH', `/api/v1/article/${archivedOne.draftId}`, { body: { archived: true } });
    assert.equal((await sharedRead(archivedOne.draftId, key)).status, 404);
    const sharedArchived = await share(archivedOne.draftId, true);
    assert.equal(sharedArchived.status, 404, 'an archived draft cannot be shared');

    const hidden = await publishedWithDraft('Members Share');
    const hiddenKey = (await share(hidden.draftId, true)).body.cmsShareKey as string;
    await t.request('PATCH', `/api/v1/article/${hidden.draftId}`, { body: { visibility: 'loginRequired' } });
    assert.equal((await sharedRead(hidden.draftId, hiddenKey)).status, 404);
    const guest = await t.request('GET', `/api/v1/article/${hidden.draftId}?cmsShareId=${hidden.draftId}&cmsShareKey=${hiddenKey}`, { key: 'guest' });
    assert.equal(guest.status, 200, 'a guest sees loginRequired documents');
    assert.equal('cmsShareKey' in guest.body, false);
  });

  it('the key stays out of reach of callers who cannot edit: filters, sorts, choices, projections, the public read', async () => {
    const { draftId, publishedId } = await publishedWithDraft('Oracle');
    const key = (await share(draftId, true)).body.cmsShareKey as string;
    const filtered = await t.request('GET', `/api/v1/article?cmsShareKey=${key}`, { key: null });
    assert.equal(filtered.status, 200);
    const unfiltered = await t.request('GET', '/api/v1/article', { key: null });
    assert.deepEqual(filtered.body.results, unfiltered.body.results, 'cmsShareKey filters nothing');
    const sorted = await t.request('GET', '/api/v1/article?sort[cmsShareKey]=1', { key: null });
    assert.equal(sorted.status, 400);
    const choices = await t.request('GET', '/api/v1/article?choices=cmsShareKey', { key: null });
    assert.equal(choices.status, 200);
    assert.equal(choices.body.choices?.cmsShareKey, undefined);
    const projected = await t.request('GET', `/api/v1/article/${publishedId}?project[cmsShareKey]=1`, { key: null });
    assert.equal('cmsShareKey' in projected.body, false);
    // A guest may not read drafts at all.
    const guestDraft = await t.request('GET', `/api/v1/article/${draftId}`, { key: 'guest' });
    assert.equal(guestDraft.status, 403);
    // A contributor edits drafts, so sees the key; the body of a PATCH cannot set one.
    const contributor = await t.request('GET', `/api/v1/article/${draftId}`, { key: 'contributor' });
    assert.equal(contributor.body.cmsShareKey, key);
    const forged = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { cmsShareKey: 'forged-key', title: 'Oracle (patched)' } });
    assert.equal(forged.status, 200);
    assert.equal(forged.body.cmsShareKey, key);
    assert.equal((await sharedRead(draftId, 'forged-key')).status, 404);
    const put = await t.request('PUT', `/api/v1/article/${draftId}`, { body: { title: 'Oracle (put)', cmsShareKey: 'forged-key' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.cmsShareKey, key, 'a PUT keeps the key');
  });

  it('sharing needs edit permission and a full draft _id; hostile bodies are 400s and change nothing', async () => {
    const { draftId, publishedId, docId } = await publishedWithDraft('Permissions');
    const anonymous = await share(draftId, true, { key: null });
    assert.equal(anonymous.status, 403);
    const guest = await share(draftId, true, { key: 'guest' });
    assert.equal(guest.status, 403);
    const contributor = await share(draftId, true, { key: 'contributor' });
    assert.equal(contributor.status, 200, 'a contributor edits drafts');
    assert.equal(typeof contributor.body.cmsShareKey, 'string');
    assert.equal((await share(draftId, false, { key: 'editor' })).status, 200);

    assert.equal((await share(publishedId, true)).status, 404, 'the published version has no share key');
    assert.equal((await share(docId, true)).status, 404, 'a bare id names no draft');
    assert.equal((await share(`${docId}:xx:draft`, true)).status, 404);
    assert.equal((await share(`${docId}:es:draft`, true)).status, 404, 'no Spanish draft');
    assert.equal((await share('missing:en:draft', true)).status, 404);
    const note = await t.request('POST', '/api/v1/note?cmsMode=draft', { body: { title: 'A note' } });
    assert.equal((await t.request('POST', `/api/v1/article/${note.body._id}/share`, { body: { share: true } })).status, 404);

    for (const body of [{}, { share: 'true' }, { share: 1 }, { share: null }, { share: [true] }, { share: { yes: true } }]) {
      const res = await t.request('POST', `/api/v1/article/${draftId}/share`, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.name, 'invalid');
    }
    const array = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: [true] });
    assert.equal(array.status, 400);
    const proto = await t.request('POST', `/api/v1/article/${draftId}/share`, { payload: '{"share":true,"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    assert.equal(proto.status, 400);
    const read = await t.request('GET', `/api/v1/article/${draftId}`);
    assert.equal('cmsShareKey' in read.body, false, 'nothing was stored');
  });

  it('a type without a page has no link to share: the draft is answered unchanged (facts 1.3)', async () => {
    const note = await t.request('POST', '/api/v1/note?cmsMode=draft', { body: { title: 'Pageless' } });
    const res = await t.request('POST', `/api/v1/note/${note.body._id}/share`, { body: { share: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, note.body._id);
    assert.equal('cmsShareKey' in res.body, false);
  });

  it('honours If-Match: a share based on a stale version is a 412 and stores no key', async () => {
    const { draftId } = await publishedWithDraft('Stale');
    const read = await t.request('GET', `/api/v1/article/${draftId}`);
    const etag = String(read.headers.etag);
    await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: 'Stale (changed)' } });
    const stale = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true }, headers: { 'if-match': etag } });
    assert.equal(stale.status, 412, stale.text);
    assert.equal('cmsShareKey' in (await t.request('GET', `/api/v1/article/${draftId}`)).body, false);
    const current = String((await t.request('GET', `/api/v1/article/${draftId}`)).headers.etag);
    const fresh = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true }, headers: { 'if-match': current } });
    assert.equal(fresh.status, 200, fresh.text);
    // Sharing changes no content: the draft's version stays, so the editor's ETag still works.
    const patched = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { category: 'after share' }, headers: { 'if-match': current } });
    assert.equal(patched.status, 200, patched.text);
  });

});

/** Counts `documents.find` on the adapter: an answer from the response cache reads nothing. */
function countFinds(counter: { finds: number }) {
  return (adapter: StorageAdapter): StorageAdapter =>
    new Proxy(adapter, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop !== 'documents') return typeof value === 'function' ? value.bind(target) : value;
        const documents = value as DocumentStore;
        return new Proxy(documents, {
          get(store, name) {
            const method = Reflect.get(store, name, store);
            if (name === 'find') return (query: Parameters<DocumentStore['find']>[0]) => (counter.finds++, documents.find(query));
            return typeof method === 'function' ? method.bind(store) : method;
          },
        });
      },
    });
}

describe('the shared read and the response cache', () => {
  const counter = { finds: 0 };
  let t: TestApp;
  before(async () => {
    t = await startTestApp(undefined, {}, { wrapStorage: countFinds(counter) });
  });
  after(() => t.close());

  it('reads the store on every shared read, while the plain anonymous read of the same document comes from the cache', async () => {
    const published = (await t.request('POST', '/api/v1/article', { body: { title: 'Cache Probe' } })).body;
    const draftId = `${published.cmsDocId}:en:draft`;
    const key = (await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true } })).body.cmsShareKey as string;
    const url = `/api/v1/article/${draftId}?cmsShareId=${draftId}&cmsShareKey=${encodeURIComponent(key)}`;
    for (let i = 0; i < 3; i++) {
      const finds = counter.finds;
      const res = await t.request('GET', url, { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      assert.ok(counter.finds > finds, 'the shared read was not answered from the cache');
    }
    const publicUrl = `/api/v1/article/${published._id}`;
    await t.request('GET', publicUrl, { key: null });
    const finds = counter.finds;
    const cached = await t.request('GET', publicUrl, { key: null });
    assert.equal(cached.status, 200);
    assert.equal(counter.finds, finds, 'the plain read is cached (the cache is on)');
    // Unsharing is seen by the very next read.
    await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: false } });
    assert.equal((await t.request('GET', url, { key: null })).status, 404);
  });
});

describe('the typed client shares, reads by key and unshares', () => {
  type Doc = { [key: string]: any };
  type Types = { article: { read: Doc; public: Doc; write: Doc; patch: Doc } };
  let t: TestApp;
  let baseUrl: string;
  before(async () => {
    t = await startTestApp();
    baseUrl = `http://127.0.0.1:${await t.listen()}/`;
  });
  after(() => t.close());

  it('share answers the key, get with shareKey reads the draft anonymously, unshare ends it', async () => {
    const admin = createCmsClient<Types>({ baseUrl, apiKey: keys.admin });
    const anonymous = createCmsClient<Types>({ baseUrl });
    const draft = await admin.insert('article', { title: 'Client Share' }, { mode: 'draft' });
    const shared = await admin.share('article', draft._id, { ifUnchanged: draft });
    assert.equal(typeof shared.cmsShareKey, 'string');
    const read = await anonymous.get('article', draft._id, { shareKey: shared.cmsShareKey });
    assert.equal(read.title, 'Client Share');
    const unshared = await admin.unshare('article', draft._id);
    assert.equal(unshared.cmsShareKey, undefined);
    await assert.rejects(anonymous.get('article', draft._id, { shareKey: shared.cmsShareKey }), (error: unknown) => error instanceof CmsError && error.status === 404);
  });

  it('makes a preview link that expires, lists it and revokes it', async () => {
    const admin = createCmsClient<Types>({ baseUrl, apiKey: keys.admin });
    const anonymous = createCmsClient<Types>({ baseUrl });
    const draft = await admin.insert('article', { title: 'Client Link' }, { mode: 'draft' });
    const link = await admin.share('article', draft._id, { expiresIn: 60 });
    assert.equal(typeof link.cmsShareLinkId, 'string');
    assert.equal((await anonymous.get('article', draft._id, { shareKey: link.cmsShareKey })).title, 'Client Link');
    assert.deepEqual((await admin.shareLinks('article', draft._id)).results.map((each) => [each._id, each.expiresAt]), [[link.cmsShareLinkId, link.cmsShareExpiresAt]]);
    assert.deepEqual(await admin.revokeShareLink('article', draft._id, link.cmsShareLinkId!), { revoked: link.cmsShareLinkId });
    await assert.rejects(anonymous.get('article', draft._id, { shareKey: link.cmsShareKey }), (error: unknown) => error instanceof CmsError && error.status === 404);
  });
});
