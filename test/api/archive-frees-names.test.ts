import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

describe('archiving frees the slug (and a user\'s username and email); restoring takes them back when free', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher() });
  });
  after(() => t.close());

  async function article(title: string, query = '') {
    const res = await t.request('POST', `/api/v1/article${query}`, { body: { title } });
    assert.equal(res.status, 200, res.text);
    return res.body as { _id: string; cmsDocId: string; slug: string };
  }

  const versions = async (docId: string) => {
    const draft = await t.request('GET', `/api/v1/article/${docId}:en:draft?archived=any`);
    const published = await t.request('GET', `/api/v1/article/${docId}:en:published?archived=any`);
    return { draft: draft.body, published: published.body };
  };

  it('archiving a published article prefixes the slug of both versions and sets cmsWasArchived; the slug is free for another', async () => {
    const first = await article('Free Me');
    assert.equal(first.slug, 'free-me');
    const archived = await t.request('PATCH', `/api/v1/article/${first._id}`, { body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    const prefixed = `deduplicate-${first.cmsDocId}-free-me`;
    assert.equal(archived.body.slug, prefixed);
    assert.equal(archived.body.cmsWasArchived, true);
    assert.equal(archived.body._url, `http://cms.test/articles/${prefixed}`);
    const { draft, published } = await versions(first.cmsDocId);
    assert.equal(draft.slug, prefixed);
    assert.equal(published.slug, prefixed);
    assert.equal(draft.cmsWasArchived, true);
    assert.equal(draft.modified, false, 'archiving changes no content');

    const second = await article('Free Me');
    assert.equal(second.slug, 'free-me', 'the archived document no longer holds the slug');

    // Restoring: the slug was taken meanwhile, so the restored one gets the next free one.
    const restored = await t.request('PATCH', `/api/v1/article/${first._id}`, { body: { archived: false } });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.slug, 'free-me-2');
    assert.equal(restored.body.cmsWasArchived, false);
    const after = await versions(first.cmsDocId);
    assert.equal(after.draft.slug, 'free-me-2');
    assert.equal(after.draft.archived, false);
    assert.equal(after.draft.cmsWasArchived, false);
    assert.equal(after.draft.modified, false);
  });

  it('restoring takes the old slug back when it is still free; archiving through the draft reaches the published version', async () => {
    const doc = await article('Come Back');
    const draftId = `${doc.cmsDocId}:en:draft`;
    const archived = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    assert.equal(archived.body.slug, `deduplicate-${doc.cmsDocId}-come-back`);
    assert.equal(archived.body.modified, false);
    assert.equal((await versions(doc.cmsDocId)).published.slug, `deduplicate-${doc.cmsDocId}-come-back`);
    const restored = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { archived: false } });
    assert.equal(restored.body.slug, 'come-back');
    assert.equal(restored.body.modified, false);
    const { published } = await versions(doc.cmsDocId);
    assert.equal(published.slug, 'come-back');
    assert.equal(published.archived, false);
    assert.equal(published.cmsWasArchived, false);
    // A document never archived has no cmsWasArchived at all, as in the original.
    assert.equal('cmsWasArchived' in (await article('Never Archived')), false);
  });

  it('an archived document keeps its slug prefixed through later writes (slug, title, PUT), and restores to the slug asked for', async () => {
    const doc = await article('Still Archived');
    await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { archived: true } });
    const renamed = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { slug: 'new-name' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.slug, `deduplicate-${doc.cmsDocId}-new-name`);
    const retitled = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { title: 'Retitled' } });
    assert.equal(retitled.body.slug, `deduplicate-${doc.cmsDocId}-new-name`);
    // A PUT sends back what GET answered, the prefixed slug: it is not prefixed twice.
    const put = await t.request('PUT', `/api/v1/article/${doc._id}`, { body: { ...retitled.body, title: 'Put' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.slug, `deduplicate-${doc.cmsDocId}-new-name`);
    const restored = await t.request('PUT', `/api/v1/article/${doc._id}`, { body: { ...put.body, archived: false } });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.slug, 'new-name');
    assert.equal(restored.body.archived, false);
  });

  it('lists show the prefixed slug with archived=any; the slug filter (contains, as the original) finds the live holder alone by default', async () => {
    const archivedOne = await article('Listed Twice');
    await t.request('PATCH', `/api/v1/article/${archivedOne._id}`, { body: { archived: true } });
    const live = await article('Listed Twice');
    assert.equal(live.slug, 'listed-twice');
    const all = await t.request('GET', '/api/v1/article?archived=any&perPage=100');
    const slugs = all.body.results.map((doc: { slug: string }) => doc.slug);
    assert.ok(slugs.includes('listed-twice'));
    assert.ok(slugs.includes(`deduplicate-${archivedOne.cmsDocId}-listed-twice`));
    const bySlug = await t.request('GET', '/api/v1/article?slug=listed-twice');
    assert.equal(bySlug.status, 200, bySlug.text);
    assert.deepEqual(bySlug.body.results.map((doc: { _id: string }) => doc._id), [live._id]);
    const anySlug = await t.request('GET', '/api/v1/article?archived=any&slug=listed-twice&sort[createdAt]=1');
    assert.deepEqual(anySlug.body.results.map((doc: { _id: string }) => doc._id), [archivedOne._id, live._id]);
    const archivedSlug = await t.request('GET', `/api/v1/article?archived=1&slug=deduplicate-${archivedOne.cmsDocId}`);
    assert.deepEqual(archivedSlug.body.results.map((doc: { _id: string }) => doc._id), [archivedOne._id]);
    const anonymous = await t.request('GET', '/api/v1/article?archived=any&perPage=100', { key: null });
    assert.equal(anonymous.body.results.some((doc: { slug: string }) => doc.slug.startsWith('deduplicate-')), false);
  });

  it('a document inserted archived holds a prefixed slug from the start; a draft-only one too', async () => {
    const res = await t.request('POST', '/api/v1/article', { body: { title: 'Born Archived', archived: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.slug, `deduplicate-${res.body.cmsDocId}-born-archived`);
    assert.equal(res.body.cmsWasArchived, true);
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Born Archived', archived: true } });
    assert.equal(draft.body.slug, `deduplicate-${draft.body.cmsDocId}-born-archived`);
    assert.equal((await article('Born Archived')).slug, 'born-archived');
  });

  it('localizing an archived draft gives the new locale a live slug', async () => {
    const doc = await article('Localized Archive');
    await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { archived: true } });
    const res = await t.request('POST', `/api/v1/article/${doc.cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.slug, 'localized-archive');
    assert.equal(res.body.archived, false);
  });

  it('an archived value of the wrong type is a 400 and frees nothing', async () => {
    const doc = await article('Hostile Archive');
    for (const archived of ['maybe', 7, [true], { $ne: false }]) {
      const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { archived } });
      assert.equal(res.status, 400, JSON.stringify(archived));
    }
    const read = await t.request('GET', `/api/v1/article/${doc._id}`);
    assert.equal(read.body.slug, 'hostile-archive');
    assert.equal('cmsWasArchived' in read.body, false);
  });

  it('archiving needs the right to reach the published version: a contributor cannot free the published slug', async () => {
    const doc = await article('Guarded Slug');
    const res = await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}:en:draft`, { key: 'contributor', body: { archived: true } });
    assert.equal(res.status, 403);
    const { draft, published } = await versions(doc.cmsDocId);
    assert.equal(draft.slug, 'guarded-slug');
    assert.equal(published.slug, 'guarded-slug');
    assert.equal(draft.archived, false);
  });

  describe('users', () => {
    async function user(username: string, email: string) {
      const res = await t.request('POST', '/api/v1/@cms/user', {
        body: { title: username, username, email, password: `${username}-password-123`, role: 'editor' },
      });
      assert.equal(res.status, 200, res.text);
      return res.body as { _id: string; cmsDocId: string; slug: string; username: string; email: string };
    }
    const login = (username: string, password: string) => t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username, password } });

    it('archiving a user prefixes username, email and slug, in the document and the login: the old names are free', async () => {
      const ada = await user('ada', 'ada@example.com');
      assert.equal(ada.slug, 'user-ada');
      assert.equal((await login('ada', 'ada-password-123')).status, 200);
      const archived = await t.request('PATCH', `/api/v1/@cms/user/${ada._id}`, { body: { archived: true } });
      assert.equal(archived.status, 200, archived.text);
      const prefix = `deduplicate-${ada._id}-`;
      assert.equal(archived.body.username, `${prefix}ada`);
      assert.equal(archived.body.email, `${prefix}ada@example.com`);
      assert.equal(archived.body.slug, `${prefix}user-ada`);
      assert.equal(archived.body.cmsWasArchived, true);
      assert.equal('password' in archived.body, false);
      // The archived user cannot log in, under the old names or the new ones.
      assert.equal((await login('ada', 'ada-password-123')).status, 400);
      assert.equal((await login('ada@example.com', 'ada-password-123')).status, 400);
      assert.equal((await login(`${prefix}ada`, 'ada-password-123')).status, 400);

      // A new user takes the names.
      const second = await user('ada', 'ada@example.com');
      assert.equal(second.username, 'ada');
      assert.equal(second.slug, 'user-ada');
      const signedIn = await login('ada', 'ada-password-123');
      assert.equal(signedIn.status, 200, signedIn.text);
      const whoami = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: { authorization: `Bearer ${signedIn.body.token}` } });
      assert.equal(whoami.body._id, second._id);
      assert.equal((await login('ada@example.com', 'ada-password-123')).status, 200);

      // Restoring the first: its names were taken, so username and email stay prefixed; the slug gets a suffix.
      const restored = await t.request('PATCH', `/api/v1/@cms/user/${ada._id}`, { body: { archived: false } });
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.archived, false);
      assert.equal(restored.body.cmsWasArchived, false);
      assert.equal(restored.body.username, `${prefix}ada`);
      assert.equal(restored.body.email, `${prefix}ada@example.com`);
      assert.equal(restored.body.slug, 'user-ada-2');
      // It logs in under the name it holds; the new user keeps `ada`.
      assert.equal((await login(`${prefix}ada`, 'ada-password-123')).status, 200);
      const again = await login('ada', 'ada-password-123');
      const who = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: { authorization: `Bearer ${again.body.token}` } });
      assert.equal(who.body._id, second._id);
    });

    it('restoring a user whose names are still free gives them back, and the login works again', async () => {
      const grace = await user('grace', 'grace@example.com');
      await t.request('PATCH', `/api/v1/@cms/user/${grace._id}`, { body: { archived: true } });
      // Changing another field while archived keeps the names prefixed.
      const renamed = await t.request('PATCH', `/api/v1/@cms/user/${grace._id}`, { body: { title: 'Grace H.' } });
      assert.equal(renamed.body.username, `deduplicate-${grace._id}-grace`);
      const restored = await t.request('PATCH', `/api/v1/@cms/user/${grace._id}`, { body: { archived: false } });
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.username, 'grace');
      assert.equal(restored.body.email, 'grace@example.com');
      assert.equal(restored.body.slug, 'user-grace');
      assert.equal((await login('grace', 'grace-password-123')).status, 200);
      assert.equal((await login('grace@example.com', 'grace-password-123')).status, 200);
    });

    it('only the name that was taken stays prefixed: a free email comes back though the username was taken', async () => {
      const lin = await user('lin', 'lin@example.com');
      await t.request('PATCH', `/api/v1/@cms/user/${lin._id}`, { body: { archived: true } });
      await user('lin', 'other-lin@example.com');
      const restored = await t.request('PATCH', `/api/v1/@cms/user/${lin._id}`, { body: { archived: false } });
      assert.equal(restored.body.username, `deduplicate-${lin._id}-lin`);
      assert.equal(restored.body.email, 'lin@example.com');
      assert.equal((await login('lin@example.com', 'lin-password-123')).status, 200);
    });

    it('a user without an email is archived and restored without one', async () => {
      const res = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'No Mail', username: 'nomail', password: 'nomail-password-123', role: 'guest' } });
      assert.equal(res.status, 200, res.text);
      const archived = await t.request('PATCH', `/api/v1/@cms/user/${res.body._id}`, { body: { archived: true } });
      assert.equal(archived.status, 200, archived.text);
      assert.ok(!archived.body.email, 'no email was made up');
      const restored = await t.request('PATCH', `/api/v1/@cms/user/${res.body._id}`, { body: { archived: false } });
      assert.equal(restored.body.username, 'nomail');
      assert.ok(!restored.body.email);
    });
  });
});
