import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp, type TestResponse, signedInUser } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';

/**
 * What callers without API access (anonymous, guests) may learn, and what archiving may reach:
 * archived documents, attachment usage, relationship filters, search ranking.
 */

/** The fixture types plus `post`: a public attachment and relationship, a public and a hidden text, ordered by title. */
function accessConfig(): Record<string, unknown> {
  const config = testConfig() as { modules: Record<string, unknown> };
  config.modules.post = {
    extend: '@cms/piece-type',
    options: { label: 'Post', publicApiProjection: { title: 1, slug: 1, summary: 1, photo: 1, _topics: 1 }, sort: { title: 1 } },
    fields: {
      add: {
        summary: { type: 'string' },
        secret: { type: 'string' },
        photo: { type: 'attachment', fileGroups: ['images'] },
        _topics: { type: 'relationship', withType: 'article' },
      },
    },
  };
  config.modules.bulletin = { extend: '@cms/piece-type', options: { autopublish: true } };
  config.modules.ledger = { extend: '@cms/piece-type', options: { viewRole: 'editor' } };
  return config;
}

const titles = (res: TestResponse): string[] => res.body.results.map((doc: { title: string }) => doc.title);

describe('access past the rules', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(accessConfig());
  });
  after(() => t.close());

  async function create(type: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function archive(type: string, id: string): Promise<void> {
    const res = await t.request('PATCH', `/api/v1/${type}/${id}`, { body: { archived: true } });
    assert.equal(res.status, 200, res.text);
  }

  describe('archived documents', () => {
    let kept: Record<string, any>;
    let gone: Record<string, any>;
    let goneImage: Record<string, any>;
    before(async () => {
      kept = await create('article', { title: 'Kept Article', category: 'shelf' });
      gone = await create('article', { title: 'Gone Article', category: 'shelf' });
      await archive('article', gone._id);
      const png = await uploaded(t, 'gone.png', await makeImage('png', 16, 16));
      goneImage = await create('@cms/image', { title: 'Gone Image', attachment: png });
      await archive('@cms/image', goneImage._id);
    });

    it('never lists archived documents to anonymous callers or guests, whatever archived says', async () => {
      for (const key of [null, 'guest'] as const) {
        for (const archived of ['1', 'true', 'any', 'null']) {
          const list = await t.request('GET', `/api/v1/article?archived=${archived}&perPage=100`, { key });
          assert.equal(list.status, 200, list.text);
          assert.ok(!titles(list).includes('Gone Article'), `${key} archived=${archived}`);
          assert.ok(titles(list).includes('Kept Article'), 'the parameter is ignored: live documents');
          const count = await t.request('GET', `/api/v1/article?archived=${archived}&count=1&category=shelf`, { key });
          assert.equal(count.body.count, 1, `${key} count archived=${archived}`);
          const ids = await t.request('GET', `/api/v1/article?archived=${archived}&_ids[]=${gone.cmsDocId}`, { key });
          assert.deepEqual(ids.body.results, []);
          const choices = await t.request('GET', `/api/v1/article?archived=${archived}&choices=title&counts=category`, { key });
          assert.ok(!choices.body.choices.title.some((choice: { value: string }) => choice.value === 'Gone Article'));
          assert.ok(!choices.body.counts.category.some((choice: { count: number }) => choice.count > 1));
          const images = await t.request('GET', `/api/v1/@cms/image?archived=${archived}`, { key });
          assert.ok(!titles(images).includes('Gone Image'), `${key} images archived=${archived}`);
        }
        const one = await t.request('GET', `/api/v1/article/${gone._id}?archived=any`, { key });
        assert.equal(one.status, 404, one.text);
        assert.equal(one.body.name, 'notfound');
        assert.equal((await t.request('GET', `/api/v1/article/${gone._id}?archived=1`, { key })).status, 404);
        assert.equal((await t.request('GET', `/api/v1/@cms/image/${goneImage._id}?archived=any`, { key })).status, 404);
        assert.deepEqual((await t.request('GET', `/api/v1/article/${gone._id}/locales`, { key })).body.results, []);
        assert.equal((await t.request('GET', `/api/v1/@cms/image/${goneImage.cmsDocId}/src`, { key })).status, 404);
      }
    });

    it('still shows archived documents to callers with API access when asked', async () => {
      assert.deepEqual(titles(await t.request('GET', '/api/v1/article?archived=1', { key: 'contributor' })), ['Gone Article']);
      assert.equal((await t.request('GET', `/api/v1/article/${gone._id}?archived=any`, { key: 'contributor' })).status, 200);
      assert.deepEqual(titles(await t.request('GET', '/api/v1/@cms/image?archived=1')), ['Gone Image']);
      const count = await t.request('GET', '/api/v1/article?archived=any&count=1&category=shelf', { key: 'contributor' });
      assert.equal(count.body.count, 2);
    });
  });

  describe('archiving a published document through its draft', () => {
    let editor: { headers: Record<string, string>; id: string };
    let contributor: { headers: Record<string, string>; id: string };
    let doc: Record<string, any>;
    before(async () => {
      editor = await signedInUser(t, 'eve', 'editor');
      contributor = await signedInUser(t, 'carl', 'contributor');
      doc = await create('article', { title: 'Front Page' });
    });

    const draftId = () => `${doc.cmsDocId}:en:draft`;
    const read = (mode: 'draft' | 'published') => t.request('GET', `/api/v1/article/${doc.cmsDocId}:en:${mode}?archived=any`);
    const as = (who: { headers: Record<string, string> }, method: 'PATCH' | 'PUT', body: Record<string, unknown>) =>
      t.request(method, `/api/v1/article/${draftId()}`, { key: null, headers: who.headers, body });

    it('refuses a contributor archiving the draft of a published document, and changes nothing', async () => {
      const before = [await read('draft'), await read('published')].map((res) => res.body);
      for (const res of [await as(contributor, 'PATCH', { archived: true }), await as(contributor, 'PUT', { title: 'Front Page', archived: true })]) {
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.name, 'forbidden');
      }
      assert.deepEqual([(await read('draft')).body, (await read('published')).body], before);
      assert.equal((await t.request('GET', `/api/v1/article/${doc._id}`, { key: null })).status, 200, 'still served');
    });

    it('lets a contributor archive and restore a never-published draft', async () => {
      const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: null, headers: contributor.headers, body: { title: 'Idea' } });
      assert.equal(created.status, 200, created.text);
      const url = `/api/v1/article/${created.body._id}`;
      const archived = await t.request('PATCH', url, { key: null, headers: contributor.headers, body: { archived: true } });
      assert.equal(archived.status, 200, archived.text);
      assert.equal(archived.body.archived, true);
      const restored = await t.request('PATCH', url, { key: null, headers: contributor.headers, body: { archived: false } });
      assert.equal(restored.body.archived, false);
    });

    it('lets an editor archive both versions, each recording the editor, and refuses the contributor restoring them', async () => {
      const res = await as(editor, 'PATCH', { archived: true });
      assert.equal(res.status, 200, res.text);
      const eve = { _id: editor.id, title: 'eve Person', username: 'eve' };
      for (const mode of ['draft', 'published'] as const) {
        const version = (await read(mode)).body;
        assert.equal(version.archived, true, mode);
        assert.deepEqual(version.updatedBy, eve, mode);
      }
      assert.equal((await t.request('GET', `/api/v1/article/${doc._id}`, { key: null })).status, 404, 'offline');

      const refused = await as(contributor, 'PATCH', { archived: false });
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await read('draft')).body.archived, true);
      assert.equal((await read('published')).body.archived, true);
    });

    it('lets an editor restore both versions, each recording the editor', async () => {
      // The published version last changed by someone else, so that the restore must restamp it.
      const byAdmin = await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}:en:published`, { body: { category: 'by admin' } });
      assert.equal(byAdmin.status, 200, byAdmin.text);
      assert.notEqual(byAdmin.body.updatedBy._id, editor.id);
      const res = await as(editor, 'PATCH', { archived: false });
      assert.equal(res.status, 200, res.text);
      for (const mode of ['draft', 'published'] as const) {
        const version = (await read(mode)).body;
        assert.equal(version.archived, false, mode);
        assert.equal(version.updatedBy._id, editor.id, mode);
      }
      assert.equal((await t.request('GET', `/api/v1/article/${doc._id}`, { key: null })).status, 200, 'online again');
    });
  });

  describe('attachment usage', () => {
    it('omits docIds and archivedDocIds for callers without API access, in pieces and in image pieces', async () => {
      const png = await uploaded(t, 'usage.png', await makeImage('png', 16, 16));
      assert.deepEqual(png.docIds, [], 'the upload response keeps them');
      const post = await create('post', { title: 'Pictured', photo: png });
      const image = await create('@cms/image', { title: 'Usage Image', attachment: png });
      const shown = [
        (await t.request('GET', `/api/v1/post/${post._id}`, { key: null })).body.photo,
        (await t.request('GET', `/api/v1/post/${post._id}`, { key: 'guest' })).body.photo,
        (await t.request('GET', '/api/v1/post?search=pictured', { key: null })).body.results[0].photo,
        (await t.request('GET', `/api/v1/@cms/image/${image._id}`, { key: null })).body.attachment,
        (await t.request('GET', '/api/v1/@cms/image', { key: 'guest' })).body.results[0].attachment,
      ];
      for (const attachment of shown) {
        assert.equal(attachment._id, png._id);
        assert.equal(typeof attachment._url, 'string');
        assert.equal(attachment.docIds, undefined);
        assert.equal(attachment.archivedDocIds, undefined);
      }
      const full = (await t.request('GET', `/api/v1/post/${post._id}`, { key: 'contributor' })).body.photo;
      assert.ok(full.docIds.includes(`${post.cmsDocId}:en:draft`));
      assert.deepEqual(full.archivedDocIds, []);
    });
  });

  describe('relationship filters', () => {
    let authorId: string;
    before(async () => {
      const author = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Rel Author', username: 'relauthor' } });
      authorId = author.body._id;
      await create('article', { title: 'Authored', category: 'rel', _author: [{ _id: authorId }] });
      await create('article', { title: 'Unauthored', category: 'rel' });
    });

    it('ignores filters on a relationship whose type the caller cannot read: nothing is learnt', async () => {
      const base = '/api/v1/article?category=rel';
      assert.deepEqual(titles(await t.request('GET', base, { key: null })).sort(), ['Authored', 'Unauthored']);
      const variants = [
        `_author[]=${authorId}`,
        '_author[]=nobody0000000000000000000',
        `_authorAnd[]=${authorId}`,
        '_author=none',
        'author=user-relauthor',
        'authorAnd[]=user-relauthor',
        'author=none',
      ];
      for (const key of [null, 'guest'] as const) {
        const unfiltered = await t.request('GET', base, { key });
        for (const variant of variants) {
          const res = await t.request('GET', `${base}&${variant}`, { key });
          assert.equal(res.status, 200, res.text);
          assert.deepEqual(res.body, unfiltered.body, `${key} ${variant}`);
        }
        const counted = await t.request('GET', `${base}&_author[]=${authorId}&count=1`, { key });
        assert.equal(counted.body.count, 2);
        // As the original's, each projected filter named gets its list: an empty one.
        const choices = await t.request('GET', `${base}&choices=_author,author&counts=_author`, { key });
        assert.deepEqual(choices.body.choices, { _author: [], author: [] });
        assert.deepEqual(choices.body.counts, { _author: [] });
      }
    });

    it('matches only related documents the caller can read, as if other ids named nothing', async () => {
      const hidden = await create('article', { title: 'Members Topic', visibility: 'loginRequired' });
      const archived = await create('article', { title: 'Archived Topic' });
      const shown = await create('article', { title: 'Shown Topic' });
      await create('post', { title: 'On hidden things', _topics: [{ _id: hidden._id }, { _id: archived._id }] });
      await create('post', { title: 'On shown things', _topics: [{ _id: shown._id }] });
      await archive('article', archived._id);
      const unknown = 'nothing00000000000000000';
      const answer = async (key: 'guest' | null, filter: string) => titles(await t.request('GET', `/api/v1/post?${filter}`, { key }));
      for (const [key, ids] of [[null, [hidden.cmsDocId, archived.cmsDocId]], ['guest', [archived.cmsDocId]]] as const) {
        for (const id of [...ids, unknown]) {
          assert.deepEqual(await answer(key, `_topics[]=${id}`), [], `${key} ${id}`);
          assert.deepEqual(await answer(key, `_topicsAnd[]=${id}`), [], `${key} ${id}`);
          assert.deepEqual(await answer(key, `_topics[]=${id}&_topics[]=${shown.cmsDocId}`), ['On shown things']);
        }
        assert.deepEqual(await answer(key, `_topics[]=${shown.cmsDocId}`), ['On shown things']);
      }
      assert.deepEqual(await answer('guest', `_topics[]=${hidden.cmsDocId}`), ['On hidden things'], 'guests see loginRequired');
      assert.deepEqual(titles(await t.request('GET', `/api/v1/post?_topics[]=${archived.cmsDocId}`)), ['On hidden things']);
    });

    it('still filters and offers choices for callers who may read the related type', async () => {
      assert.deepEqual(titles(await t.request('GET', `/api/v1/article?category=rel&_author[]=${authorId}`)), ['Authored']);
      assert.deepEqual(titles(await t.request('GET', '/api/v1/article?category=rel&_author=none')), ['Unauthored']);
      const choices = await t.request('GET', '/api/v1/article?category=rel&counts=_author');
      assert.deepEqual(choices.body.counts._author, [
        { value: authorId, label: 'Rel Author', slug: 'user-rel-author', type: '@cms/user', metaType: 'doc', count: 1 },
      ]);
    });
  });

  describe('search ranking', () => {
    /** Two posts whose public texts tie; `heavy` repeats the word in its hidden text. */
    async function seed(heavy: 'Alpha' | 'Beta', word: string): Promise<void> {
      for (const title of ['Alpha', 'Beta']) {
        const secret = title === heavy ? `${word} ${word} ${word} ${word} ${word}` : 'nothing here';
        await create('post', { title: `${title} ${word}`, summary: `about ${word}`, secret });
      }
    }

    it('ranks anonymous searches by the public texts alone, admin searches by all texts', async () => {
      await seed('Beta', 'quokka');
      await seed('Alpha', 'wombat');
      for (const [word, heavy] of [['quokka', 'Beta'], ['wombat', 'Alpha']] as const) {
        for (const parameter of ['search', 'autocomplete']) {
          const query = `${parameter}=${word}`;
          const anonymous = await t.request('GET', `/api/v1/post?${query}`, { key: null });
          assert.deepEqual(titles(anonymous), [`Alpha ${word}`, `Beta ${word}`], `anonymous ${query}: the title order breaks the tie`);
          const admin = await t.request('GET', `/api/v1/post?${query}`);
          assert.equal(titles(admin)[0], `${heavy} ${word}`, `admin ${query}`);
        }
      }
    });
  });
  describe('types whose viewRole is above their editRole', () => {
    it('refuses writes by a caller who may not read the type', async () => {
      const made = await t.request('POST', '/api/v1/ledger?cmsMode=draft', { key: 'contributor', body: { title: 'Blind' } });
      assert.equal(made.status, 403, made.text);
      const byEditor = await t.request('POST', '/api/v1/ledger?cmsMode=draft', { key: 'editor', body: { title: 'Seen' } });
      assert.equal(byEditor.status, 200, byEditor.text);
      const patched = await t.request('PATCH', `/api/v1/ledger/${byEditor.body._id}`, { key: 'contributor', body: { title: 'Blind' } });
      assert.equal(patched.status, 403, patched.text);
      const listed = await t.request('GET', '/api/v1/ledger?cmsMode=draft', { key: 'editor' });
      assert.deepEqual(titles(listed), ['Seen']);
    });
  });

  describe('autopublishing types', () => {
    it('refuses draft writes of a contributor, since every save publishes', async () => {
      const draft = await t.request('POST', '/api/v1/bulletin?cmsMode=draft', { key: 'contributor', body: { title: 'Goes live' } });
      assert.equal(draft.status, 403, draft.text);
      const listed = await t.request('GET', '/api/v1/bulletin?cmsMode=draft');
      assert.deepEqual(titles(listed), []);
      const made = await t.request('POST', '/api/v1/bulletin?cmsMode=draft', { key: 'editor', body: { title: 'By an editor' } });
      assert.equal(made.status, 200, made.text);
      const patched = await t.request('PATCH', `/api/v1/bulletin/${made.body._id}`, { key: 'contributor', body: { title: 'Changed' } });
      assert.equal(patched.status, 403, patched.text);
      const deleted = await t.request('DELETE', `/api/v1/bulletin/${made.body._id}`, { key: 'contributor' });
      assert.equal(deleted.status, 403, deleted.text);
      const published = await t.request('GET', `/api/v1/bulletin/${made.body.cmsDocId}`);
      assert.equal(published.body.title, 'By an editor');
    });
  });
});
