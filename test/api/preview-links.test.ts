import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isoDate, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/** Issue 25, part 3: preview links that expire, listed and revoked one by one. */
describe('preview links: POST :_id/share with expiresIn, GET :_id/share, DELETE :_id/share/:linkId', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_SHARE_LINK_MAX_LIFETIME: '3600', CMS_LIMIT_SHARE_LINKS_PER_DRAFT: '3' });
  });
  after(() => t.close());

  /** A published article whose draft has unpublished changes. */
  async function draftOf(title: string) {
    const published = await t.request('POST', '/api/v1/article', { body: { title, category: 'live' } });
    assert.equal(published.status, 200, published.text);
    const draftId = `${published.body.cmsDocId}:en:draft`;
    const patched = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: `${title} (draft)` } });
    assert.equal(patched.status, 200, patched.text);
    return draftId;
  }

  const share = (id: string, body: Record<string, unknown>, key: 'admin' | 'editor' | 'contributor' | 'guest' | null = 'admin') =>
    t.request('POST', `/api/v1/article/${id}/share`, { body, key });
  const sharedRead = (id: string, key: string) =>
    t.request('GET', `/api/v1/article/${id}?cmsShareId=${encodeURIComponent(id)}&cmsShareKey=${encodeURIComponent(key)}`, { key: null });

  it('makes a link with a lifetime: the answer carries its key, id and expiry; an anonymous read sees the draft, private and no-store', async () => {
    const draftId = await draftOf('Expiring');
    const before = Date.now();
    const res = await share(draftId, { share: true, expiresIn: 600 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, draftId);
    assert.match(res.body.cmsShareKey, /^[A-Za-z0-9_-]{43}$/);
    assert.match(res.body.cmsShareLinkId, /^[a-z0-9]+$/);
    assert.match(res.body.cmsShareExpiresAt, isoDate);
    const lifetime = Date.parse(res.body.cmsShareExpiresAt) - before;
    assert.ok(lifetime >= 599_000 && lifetime <= 601_000, `lifetime ${lifetime}`);
    // The link is no key of the draft: a GET of the draft shows none.
    assert.equal('cmsShareKey' in (await t.request('GET', `/api/v1/article/${draftId}`)).body, false);
    const read = await sharedRead(draftId, res.body.cmsShareKey);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'Expiring (draft)');
    assert.equal(read.headers['cache-control'], 'private, no-store');
    assert.equal('cmsShareKey' in read.body, false);
    // Read again: built again, never served from the response cache.
    const again = await sharedRead(draftId, res.body.cmsShareKey);
    assert.equal(again.headers['cache-control'], 'private, no-store');
    // Each share makes another link with its own key.
    const second = await share(draftId, { share: true, expiresIn: 60 });
    assert.notEqual(second.body.cmsShareKey, res.body.cmsShareKey);
    assert.notEqual(second.body.cmsShareLinkId, res.body.cmsShareLinkId);
    assert.equal((await sharedRead(draftId, second.body.cmsShareKey)).status, 200);
    // A link's key opens its draft alone.
    const other = await draftOf('Other');
    assert.equal((await sharedRead(other, res.body.cmsShareKey)).status, 404);
  });

  it('an expired link reads nothing, as a wrong key', async () => {
    const draftId = await draftOf('Short');
    const res = await share(draftId, { share: true, expiresIn: 1 });
    assert.equal(res.status, 200, res.text);
    assert.equal((await sharedRead(draftId, res.body.cmsShareKey)).status, 200);
    await sleep(1100);
    const expired = await sharedRead(draftId, res.body.cmsShareKey);
    const wrong = await sharedRead(draftId, 'x'.repeat(43));
    assert.equal(expired.status, 404);
    assert.deepEqual(expired.body, wrong.body);
    // Nor does it show in the list.
    const list = await t.request('GET', `/api/v1/article/${draftId}/share`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body, { results: [] });
  });

  it('lists the live links newest first with who made them, the permanent key last; revokes one at a time', async () => {
    const draftId = await draftOf('Listed');
    const permanent = await share(draftId, { share: true });
    assert.equal('cmsShareLinkId' in permanent.body, false, 'without expiresIn and no default lifetime: the original key');
    const first = await share(draftId, { share: true, expiresIn: 100 }, 'editor');
    const second = await share(draftId, { share: true, expiresIn: 200 });
    const list = await t.request('GET', `/api/v1/article/${draftId}/share`, { key: 'editor' });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.headers['cache-control'], 'private, no-store');
    assert.deepEqual(
      list.body.results.map((link: { _id: string }) => link._id),
      [second.body.cmsShareLinkId, first.body.cmsShareLinkId, 'permanent'],
    );
    const [newest, older, own] = list.body.results;
    assert.deepEqual(Object.keys(newest).sort(), ['_id', 'createdAt', 'createdBy', 'expiresAt']);
    assert.match(newest.createdAt, isoDate);
    assert.equal(newest.expiresAt, second.body.cmsShareExpiresAt);
    assert.equal(older.expiresAt, first.body.cmsShareExpiresAt);
    assert.equal(typeof older.createdBy.title, 'string');
    assert.deepEqual(own, { _id: 'permanent', createdAt: null, createdBy: null, expiresAt: null });
    assert.equal(JSON.stringify(list.body).includes(first.body.cmsShareKey), false, 'a list never shows a key');

    // Revoke the first: its key reads nothing; the others still do.
    const revoked = await t.request('DELETE', `/api/v1/article/${draftId}/share/${first.body.cmsShareLinkId}`, { key: 'editor' });
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.body, { revoked: first.body.cmsShareLinkId });
    assert.equal((await sharedRead(draftId, first.body.cmsShareKey)).status, 404);
    assert.equal((await sharedRead(draftId, second.body.cmsShareKey)).status, 200);
    assert.equal((await sharedRead(draftId, permanent.body.cmsShareKey)).status, 200);
    // Again, or an unknown id: 404.
    assert.equal((await t.request('DELETE', `/api/v1/article/${draftId}/share/${first.body.cmsShareLinkId}`)).status, 404);
    assert.equal((await t.request('DELETE', `/api/v1/article/${draftId}/share/nope`)).status, 404);
    // Another draft's link is not this draft's to revoke.
    const other = await draftOf('Other Revoke');
    assert.equal((await t.request('DELETE', `/api/v1/article/${other}/share/${second.body.cmsShareLinkId}`)).status, 404);
    assert.equal((await sharedRead(draftId, second.body.cmsShareKey)).status, 200);

    // The permanent key is revoked alone too, leaving the links.
    assert.equal((await t.request('DELETE', `/api/v1/article/${draftId}/share/permanent`)).status, 200);
    assert.equal((await sharedRead(draftId, permanent.body.cmsShareKey)).status, 404);
    assert.equal((await sharedRead(draftId, second.body.cmsShareKey)).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/article/${draftId}/share/permanent`)).status, 404);

    // `{ share: false }` ends every link at once.
    await share(draftId, { share: true, expiresIn: 100 });
    assert.equal((await share(draftId, { share: false })).status, 200);
    assert.equal((await sharedRead(draftId, second.body.cmsShareKey)).status, 404);
    assert.deepEqual((await t.request('GET', `/api/v1/article/${draftId}/share`)).body, { results: [] });
  });

  it('refuses a bad expiresIn with a 400 and changes nothing', async () => {
    const draftId = await draftOf('Refused');
    for (const expiresIn of [0, -1, 1.5, '60', 3601, true, {}, []]) {
      const res = await share(draftId, { share: true, expiresIn });
      assert.equal(res.status, 400, `${JSON.stringify(expiresIn)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.equal(res.body.data.path, 'expiresIn');
    }
    assert.equal((await share(draftId, { share: false, expiresIn: 60 })).status, 400);
    assert.deepEqual((await t.request('GET', `/api/v1/article/${draftId}/share`)).body, { results: [] });
    assert.equal((await share(draftId, { share: true, expiresIn: 3600 })).status, 200, 'the maximum itself is allowed');
  });

  it('caps the live links of a draft (409), counting only live ones', async () => {
    const draftId = await draftOf('Capped');
    for (let i = 0; i < 3; i++) assert.equal((await share(draftId, { share: true, expiresIn: 60 })).status, 200);
    const refused = await share(draftId, { share: true, expiresIn: 60 });
    assert.equal(refused.status, 409, refused.text);
    assert.equal((await t.request('GET', `/api/v1/article/${draftId}/share`)).body.results.length, 3);
  });

  it('needs edit permission to share, list and revoke: contributors of others, guests and anonymous callers get nothing', async () => {
    const draftId = await draftOf('Guarded');
    const link = await share(draftId, { share: true, expiresIn: 60 });
    for (const key of ['guest', null] as const) {
      assert.ok([401, 403, 404].includes((await share(draftId, { share: true, expiresIn: 60 }, key)).status));
      const list = await t.request('GET', `/api/v1/article/${draftId}/share`, { key });
      assert.ok([401, 403, 404].includes(list.status), `${key}: ${list.status}`);
      const revoke = await t.request('DELETE', `/api/v1/article/${draftId}/share/${link.body.cmsShareLinkId}`, { key });
      assert.ok([401, 403, 404].includes(revoke.status), `${key}: ${revoke.status}`);
    }
    assert.equal((await sharedRead(draftId, link.body.cmsShareKey)).status, 200, 'nothing was revoked');
    // A published version or a bare id names no draft.
    assert.equal((await t.request('GET', `/api/v1/article/${draftId.replace(':draft', ':published')}/share`)).status, 404);
  });

  it('deleting a draft takes its links with it: the same draft made again opens with none of them', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Deleted Locale' } });
    const docId = created.body.cmsDocId as string;
    const localize = () => t.request('POST', `/api/v1/article/${docId}:en:draft/localize`, { body: { toLocale: 'es' } });
    assert.equal((await localize()).status, 200);
    const esDraft = `${docId}:es:draft`;
    const link = await share(esDraft, { share: true, expiresIn: 600 });
    assert.equal((await sharedRead(esDraft, link.body.cmsShareKey)).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/article/${esDraft}`)).status, 200);
    assert.equal((await localize()).status, 200);
    assert.equal((await sharedRead(esDraft, link.body.cmsShareKey)).status, 404);
    assert.deepEqual((await t.request('GET', `/api/v1/article/${esDraft}/share`)).body, { results: [] });
  });

  it('archiving ends the links and the key: the archived draft lists none, and restoring reopens none', async () => {
    const draftId = await draftOf('Archived');
    const permanent = await share(draftId, { share: true });
    const link = await share(draftId, { share: true, expiresIn: 60 });
    const revoked = await share(draftId, { share: true, expiresIn: 60 });
    assert.equal((await t.request('DELETE', `/api/v1/article/${draftId}/share/${revoked.body.cmsShareLinkId}`)).status, 200);
    const listBefore = await t.request('GET', `/api/v1/article/${draftId}/share`);
    assert.deepEqual(listBefore.body.results.map((each: { _id: string }) => each._id), [link.body.cmsShareLinkId, 'permanent']);

    const archived = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    assert.equal('cmsShareKey' in archived.body, false, 'the archived draft has no key');
    for (const key of [permanent.body.cmsShareKey, link.body.cmsShareKey]) assert.equal((await sharedRead(draftId, key)).status, 404);
    // The archived draft is still found: its list answers, empty; its old links are no longer there to revoke.
    const listArchived = await t.request('GET', `/api/v1/article/${draftId}/share`);
    assert.equal(listArchived.status, 200, listArchived.text);
    assert.deepEqual(listArchived.body, { results: [] });
    const revokeArchived = await t.request('DELETE', `/api/v1/article/${draftId}/share/${link.body.cmsShareLinkId}`);
    assert.equal(revokeArchived.status, 404);
    assert.equal(revokeArchived.body.name, 'notfound');
    assert.equal((await share(draftId, { share: true, expiresIn: 60 })).status, 404, 'an archived draft is not shared again');

    const restored = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { archived: false } });
    assert.equal(restored.status, 200, restored.text);
    assert.equal('cmsShareKey' in restored.body, false);
    for (const key of [permanent.body.cmsShareKey, link.body.cmsShareKey, revoked.body.cmsShareKey]) {
      assert.equal((await sharedRead(draftId, key)).status, 404, 'a restore reopens no link, revoked or not');
    }
    assert.deepEqual((await t.request('GET', `/api/v1/article/${draftId}/share`)).body, { results: [] });
    // Shared again after the restore: a new key that works.
    const again = await share(draftId, { share: true, expiresIn: 60 });
    assert.equal((await sharedRead(draftId, again.body.cmsShareKey)).status, 200);
  });

  it('archiving through the published version ends the draft\'s links too', async () => {
    const draftId = await draftOf('Archived Published');
    const link = await share(draftId, { share: true, expiresIn: 60 });
    const publishedId = draftId.replace(':draft', ':published');
    assert.equal((await t.request('PATCH', `/api/v1/article/${publishedId}`, { body: { archived: true } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${publishedId}`, { body: { archived: false } })).status, 200);
    assert.equal((await sharedRead(draftId, link.body.cmsShareKey)).status, 404);
    assert.deepEqual((await t.request('GET', `/api/v1/article/${draftId}/share`)).body, { results: [] });
  });
});

describe('preview links: a configured default lifetime', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_SHARE_LINK_LIFETIME: '1' });
  });
  after(() => t.close());

  it('a share without expiresIn makes a link that expires after the default lifetime', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Default Lifetime' } });
    const draftId = `${created.body.cmsDocId}:en:draft`;
    const res = await t.request('POST', `/api/v1/article/${draftId}/share`, { body: { share: true } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.cmsShareExpiresAt, isoDate);
    const url = `/api/v1/article/${draftId}?cmsShareId=${draftId}&cmsShareKey=${res.body.cmsShareKey}`;
    assert.equal((await t.request('GET', url, { key: null })).status, 200);
    await sleep(1100);
    assert.equal((await t.request('GET', url, { key: null })).status, 404);
  });
});
