import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { backfillReverseIds, reverseBackfillKey } from '../../src/content/indexing/reverse-backfill.js';

const piece = (fields: Record<string, unknown>, options: Record<string, unknown> = {}) => ({
  extend: '@cms/piece-type',
  options,
  fields: { add: fields },
});

/** `article` relates to `person` at the top level and to other articles inside an array. */
function bookkeepingConfig(): Record<string, unknown> {
  return {
    locales: { en: { label: 'English' } },
    apiKeys: { [keys.admin]: { role: 'admin' } },
    modules: {
      person: piece({ bio: { type: 'string' } }, { publicApiProjection: { title: 1 } }),
      article: piece({
        _authors: { type: 'relationship', withType: 'person' },
        _owner: { type: 'relationship', withType: '@cms/user' },
        links: { type: 'array', fields: { add: { _page: { type: 'relationship', withType: 'article' } } } },
      }),
    },
  };
}

type Doc = Record<string, any>;

describe('reverse relationship bookkeeping (relatedReverseIds, cacheInvalidatedAt)', () => {
  let t: TestApp;
  const create = async (type: string, body: Doc): Promise<Doc> => {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const read = async (type: string, id: string, mode: 'draft' | 'published' = 'published'): Promise<Doc> => {
    const res = await t.request('GET', `/api/v1/${type}/${id.split(':')[0]}:en:${mode}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const patch = async (id: string, body: Doc, query = ''): Promise<Doc> => {
    const res = await t.request('PATCH', `/api/v1/article/${id}${query}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    t = await startTestApp(bookkeepingConfig());
  });
  after(() => t.close());

  it('gives each related version the writer\'s cmsDocId and moves its cacheInvalidatedAt, not its updatedAt', async () => {
    const ada = await create('person', { title: 'Ada' });
    const grace = await create('person', { title: 'Grace' });
    assert.equal(ada.cacheInvalidatedAt, ada.updatedAt, 'a write sets its own cacheInvalidatedAt to its updatedAt');
    assert.equal(ada.relatedReverseIds, undefined);
    const article = await create('article', { title: 'Paper', _authors: [ada._id, grace._id] });
    assert.equal(article.cacheInvalidatedAt, article.updatedAt);

    for (const mode of ['published', 'draft'] as const) {
      for (const person of [ada, grace]) {
        const now = await read('person', person._id, mode);
        assert.deepEqual(now.relatedReverseIds, [article.cmsDocId], `${person.title} ${mode}`);
        assert.equal(now.cacheInvalidatedAt, article.updatedAt);
        assert.ok(now.cacheInvalidatedAt > now.updatedAt);
      }
    }
    const adaNow = await read('person', ada._id);
    assert.equal(adaNow.updatedAt, ada.updatedAt, 'being related to is no change of content');
  });

  it('shows a related document inside another answer without its relatedReverseIds (they grow with the store), its own answers with them', async () => {
    const ada = await create('person', { title: 'Author of many' });
    const articles = [];
    for (let n = 0; n < 3; n++) articles.push(await create('article', { title: `Paper ${n}`, _authors: [ada._id] }));
    assert.deepEqual((await read('person', ada._id)).relatedReverseIds, articles.map((article) => article.cmsDocId), 'its own get-one');
    const one = await read('article', articles[0]!._id);
    assert.equal(one._authors.length, 1);
    assert.equal(one._authors[0].title, 'Author of many');
    assert.ok(!('relatedReverseIds' in one._authors[0]), 'embedded in a get-one: none');
    assert.ok(one._authors[0].cacheInvalidatedAt, 'still with its cacheInvalidatedAt');
    const list = await t.request('GET', '/api/v1/article?perPage=50');
    assert.equal(list.status, 200);
    const embedded = list.body.results.flatMap((article: Doc) => article._authors ?? []);
    assert.ok(embedded.length >= 3);
    assert.ok(embedded.every((author: Doc) => !('relatedReverseIds' in author)), 'embedded in a list: none');
    const written = await patch(articles[1]!._id, { title: 'Paper 1, again' });
    assert.ok(!('relatedReverseIds' in written._authors[0]), "in a write's answer: none");
    const people = await t.request('GET', '/api/v1/person?perPage=50');
    assert.ok(people.body.results.find((person: Doc) => person.cmsDocId === ada.cmsDocId).relatedReverseIds.length === 3, 'its own list');
  });

  it('moves cacheInvalidatedAt of the documents that relate to a document written or removed, not their updatedAt', async () => {
    const ada = await create('person', { title: 'Related to' });
    const article = await create('article', { title: 'Relating', _authors: [ada._id] });
    const edited = await t.request('PATCH', `/api/v1/person/${ada._id}`, { body: { bio: 'new' } });
    assert.equal(edited.status, 200, edited.text);
    const relating = await read('article', article._id);
    assert.equal(relating.cacheInvalidatedAt, edited.body.updatedAt);
    assert.equal(relating.updatedAt, article.updatedAt);
    // A published-mode PATCH writes the draft too: the draft article relates to that.
    assert.equal((await read('article', article._id, 'draft')).cacheInvalidatedAt, (await read('person', ada._id, 'draft')).updatedAt);
    assert.equal((await t.request('DELETE', `/api/v1/person/${ada._id}`)).status, 200);
    assert.ok((await read('article', article._id)).cacheInvalidatedAt > edited.body.updatedAt);
  });

  it('keeps the ETag of a related document valid for its editors (If-Match)', async () => {
    const res = await t.request('POST', '/api/v1/person', { body: { title: 'Edited' } });
    const etag = res.headers.etag as string;
    await create('article', { title: 'Links to it', _authors: [res.body._id] });
    const edit = await t.request('PATCH', `/api/v1/person/${res.body._id}`, { body: { bio: 'changed' }, headers: { 'if-match': etag } });
    assert.equal(edit.status, 200, edit.text);
    assert.equal(edit.body.bio, 'changed');
    assert.equal(edit.body.relatedReverseIds.length, 1, 'the editor\'s write keeps the bookkeeping');
    assert.equal(edit.body.cacheInvalidatedAt, edit.body.updatedAt);
  });

  it('takes the id away when an update drops the relationship, and moves every related version\'s cacheInvalidatedAt', async () => {
    const ada = await create('person', { title: 'Dropped' });
    const grace = await create('person', { title: 'Kept' });
    const article = await create('article', { title: 'Changing', _authors: [ada._id, grace._id] });
    const updated = await patch(article._id, { _authors: [grace._id] });
    const adaNow = await read('person', ada._id);
    const graceNow = await read('person', grace._id);
    assert.deepEqual(adaNow.relatedReverseIds, []);
    assert.equal(adaNow.cacheInvalidatedAt, updated.updatedAt);
    assert.deepEqual(graceNow.relatedReverseIds, [article.cmsDocId]);
    assert.equal(graceNow.cacheInvalidatedAt, updated.updatedAt);
  });

  it('touches only the versions in the writer\'s locale and mode', async () => {
    const ada = await create('person', { title: 'Draft only' });
    const article = await create('article', { title: 'Drafted', _authors: [ada._id] });
    await patch(`${article.cmsDocId}:en:draft`, { _authors: [] });
    assert.deepEqual((await read('person', ada._id, 'draft')).relatedReverseIds, []);
    assert.deepEqual((await read('person', ada._id, 'published')).relatedReverseIds, [article.cmsDocId]);
    const published = await t.request('POST', `/api/v1/article/${article.cmsDocId}:en:draft/publish`, { body: {} });
    assert.equal(published.status, 200, published.text);
    assert.deepEqual((await read('person', ada._id, 'published')).relatedReverseIds, [], 'publishing the draft drops it there too');
  });

  it('keeps the id on a document that is not localized while another version still relates to it', async () => {
    const owner = await create('@cms/user', { title: 'Owner', username: 'owner' });
    const article = await create('article', { title: 'Owned', _owner: [owner._id] });
    const user = async () => (await t.request('GET', `/api/v1/@cms/user/${owner._id}`)).body;
    assert.deepEqual((await user()).relatedReverseIds, [article.cmsDocId]);
    await patch(`${article.cmsDocId}:en:draft`, { _owner: [] });
    assert.deepEqual((await user()).relatedReverseIds, [article.cmsDocId], 'the published version still relates');
    await patch(article._id, { _owner: [] });
    assert.deepEqual((await user()).relatedReverseIds, []);
  });

  it('counts relationships inside arrays, each document once', async () => {
    const target = await create('article', { title: 'Target' });
    const holder = await create('article', { title: 'Holder', links: [{ _page: [target._id] }, { _page: [target._id] }] });
    assert.deepEqual((await read('article', target._id)).relatedReverseIds, [holder.cmsDocId]);
    await patch(holder._id, { links: [{ _page: [target._id] }] });
    assert.deepEqual((await read('article', target._id)).relatedReverseIds, [holder.cmsDocId], 'still related by the item left');
  });

  it('takes the id away when the relating document is deleted', async () => {
    const ada = await create('person', { title: 'Orphan' });
    const article = await create('article', { title: 'Doomed', _authors: [ada._id] });
    const published = await t.request('DELETE', `/api/v1/article/${article._id}`);
    assert.equal(published.status, 200, published.text);
    assert.deepEqual((await read('person', ada._id, 'published')).relatedReverseIds, [], 'the published version went');
    assert.deepEqual((await read('person', ada._id, 'draft')).relatedReverseIds, [article.cmsDocId], 'the draft is still there');
    const draft = await t.request('DELETE', `/api/v1/article/${article.cmsDocId}:en:draft`);
    assert.equal(draft.status, 200, draft.text);
    assert.deepEqual((await read('person', ada._id, 'draft')).relatedReverseIds, []);
  });

  it('keeps the ids of many relating documents in the order they came, fresh in cached answers and lists, updatedAt unchanged', async () => {
    const ada = await create('person', { title: 'Many' });
    const grace = await create('person', { title: 'Some' });
    const articles: Doc[] = [];
    for (let n = 0; n < 12; n++) {
      articles.push(await create('article', { title: `Relating ${n}`, _authors: n % 3 === 0 ? [ada._id, grace._id] : [ada._id] }));
      // Read between writes: an answer kept for the last read must not outlive the next write.
      const now = await t.request('GET', `/api/v1/person/${ada._id}`);
      assert.deepEqual(now.body.relatedReverseIds, articles.map((article) => article.cmsDocId), `after ${n + 1}`);
      assert.equal(now.body.updatedAt, ada.updatedAt, 'being related to changes no content');
    }
    await patch(articles[4]!._id, { _authors: [grace._id] });
    const expected = articles.filter((_, n) => n !== 4).map((article) => article.cmsDocId);
    const list = await t.request('GET', `/api/v1/person?perPage=100&mode=published`);
    assert.equal(list.status, 200, list.text);
    const byId = new Map(list.body.results.map((doc: Doc) => [doc._id, doc]));
    assert.deepEqual((byId.get(ada._id) as Doc).relatedReverseIds, expected);
    assert.deepEqual((byId.get(grace._id) as Doc).relatedReverseIds, [0, 3, 6, 9, 4].map((n) => articles[n]!.cmsDocId));
  });

  it('writes nothing of it when the write is refused', async () => {
    const ada = await create('person', { title: 'Untouched' });
    const before = await read('person', ada._id);
    const refused = await t.request('POST', '/api/v1/article', { body: { _authors: [ada._id] } });
    assert.equal(refused.status, 400, 'no title');
    const after = await read('person', ada._id);
    assert.equal(after.relatedReverseIds, undefined);
    assert.equal(after.cacheInvalidatedAt, before.cacheInvalidatedAt);
  });

  it('ignores relatedReverseIds and cacheInvalidatedAt sent in a body', async () => {
    const ada = await create('person', { title: 'Forged' });
    const article = await create('article', { title: 'Real', _authors: [ada._id] });
    const forged = { relatedReverseIds: ['forged'], cacheInvalidatedAt: '2000-01-01T00:00:00.000Z' };
    const patched = await t.request('PATCH', `/api/v1/person/${ada._id}`, { body: { bio: 'b', ...forged } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.relatedReverseIds, [article.cmsDocId]);
    assert.equal(patched.body.cacheInvalidatedAt, patched.body.updatedAt);
    const replaced = await t.request('PUT', `/api/v1/person/${ada._id}`, { body: { title: 'Forged', ...forged } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.body.relatedReverseIds, [article.cmsDocId]);
    const inserted = await create('person', { title: 'New', ...forged });
    assert.equal(inserted.relatedReverseIds, undefined);
    assert.equal(inserted.cacheInvalidatedAt, inserted.updatedAt);
  });

  it('shows anonymous callers cacheInvalidatedAt and what the projection names, never relatedReverseIds', async () => {
    const ada = await create('person', { title: 'Public' });
    await create('article', { title: 'Private article', _authors: [ada._id] });
    const res = await t.request('GET', `/api/v1/person/${ada._id}`, { key: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['_id', 'cacheInvalidatedAt', 'metaType', 'title', 'type']);
    const list = await t.request('GET', '/api/v1/person?perPage=100', { key: null });
    assert.ok(list.body.results.every((doc: Doc) => doc.relatedReverseIds === undefined));
  });
});

describe('reverse bookkeeping of documents stored before it was kept', () => {
  it('is backfilled once at the start: related documents get their relatedReverseIds', async () => {
    const t = await startTestApp(bookkeepingConfig());
    const storage = await createStorage(t.databaseUrl, { attachmentsGenerationKey });
    try {
      const created = async (type: string, body: Doc) => (await t.request('POST', `/api/v1/${type}`, { body })).body;
      const ada = await created('person', { title: 'Old' });
      const article = await created('article', { title: 'Old article', _authors: [ada._id] });
      // The store as an older version left it: no bookkeeping, no record of the backfill.
      await storage.transaction({ lock: [ada.cmsDocId] }, async (tx) => {
        for (const version of await tx.documents.find({ type: 'person', docIds: [ada.cmsDocId] })) {
          delete version.relatedReverseIds;
          await tx.documents.update(version);
        }
        await tx.indexPlans.record(reverseBackfillKey, '0');
      });
      const stripped = await t.request('GET', `/api/v1/person/${ada._id}`);
      assert.equal(stripped.body.relatedReverseIds, undefined);

      const config = await loadAppConfig({ config: bookkeepingConfig(), env: { CMS_DATA_DIR: t.dataDir, CMS_DATABASE_URL: t.databaseUrl }, cwd: t.dataDir });
      await backfillReverseIds({ config, storage, fieldTypes: createFieldTypeRegistry() });
      for (const mode of ['published', 'draft']) {
        const res = await t.request('GET', `/api/v1/person/${ada.cmsDocId}:en:${mode}`);
        assert.deepEqual(res.body.relatedReverseIds, [article.cmsDocId], mode);
        assert.equal(res.body.updatedAt, ada.updatedAt);
      }
      assert.equal(await storage.indexPlans.digestOf(reverseBackfillKey), '2', 'recorded: the next start does nothing');
    } finally {
      await storage.close();
      await t.close();
    }
  });
});
