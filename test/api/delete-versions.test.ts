import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';

describe('DELETE of a draft: the whole document set of its locale', () => {
  let t: TestApp;
  let store: StorageAdapter;
  before(async () => {
    t = await startTestApp(undefined, {}, { wrapStorage: (adapter) => (store = adapter) });
  });
  after(() => t.close());

  /** Every stored version, read from the store itself: `previous` copies are shown by no route. */
  async function versions(cmsDocId: string): Promise<string[]> {
    const docs = await store.documents.find({ type: 'article', docIds: [cmsDocId] });
    return docs.map((doc) => String(doc.cmsLocale)).sort();
  }

  /** Published twice (so a previous copy exists) in `en`, and localized to `es`. */
  async function publishedTwice(title: string): Promise<string> {
    const created = await t.request('POST', '/api/v1/article', { body: { title } });
    assert.equal(created.status, 200, created.text);
    const { cmsDocId } = created.body;
    await t.request('PATCH', `/api/v1/article/${cmsDocId}:en:draft`, { body: { category: 'changed' } });
    assert.equal((await t.request('POST', `/api/v1/article/${cmsDocId}:en:draft/publish`)).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' } })).status, 200);
    assert.deepEqual(await versions(cmsDocId), ['en:draft', 'en:previous', 'en:published', 'es:draft']);
    return cmsDocId;
  }

  it('lets a contributor delete a draft that was never published', async () => {
    const created = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Never Published' }, key: 'contributor' });
    assert.equal(created.status, 200, created.text);
    const res = await t.request('DELETE', `/api/v1/article/${created.body._id}`, { key: 'contributor' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, '');
    assert.equal((await t.request('GET', `/api/v1/article/${created.body._id}`)).status, 404);
  });

  it('refuses a contributor the draft of a published document: it would take the published version offline', async () => {
    const cmsDocId = await publishedTwice('Contributor Refused');
    const res = await t.request('DELETE', `/api/v1/article/${cmsDocId}:en:draft`, { key: 'contributor' });
    assert.equal(res.status, 403);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
    assert.equal(res.body.name, 'forbidden');
    assert.deepEqual(await versions(cmsDocId), ['en:draft', 'en:previous', 'en:published', 'es:draft']);
  });

  it('removes draft, published and previous for an editor, leaving the other locale', async () => {
    const cmsDocId = await publishedTwice('Editor Deletes');
    const res = await t.request('DELETE', `/api/v1/article/${cmsDocId}:en:draft`, { key: 'editor' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, '');
    for (const id of [`${cmsDocId}:en:draft`, `${cmsDocId}:en:published`]) {
      assert.equal((await t.request('GET', `/api/v1/article/${id}`)).status, 404, id);
    }
    assert.deepEqual(await versions(cmsDocId), ['es:draft']);
    assert.equal((await t.request('GET', `/api/v1/article/${cmsDocId}:es:draft`)).status, 200);
    const list = await t.request('GET', '/api/v1/article?perPage=100', { key: null });
    assert.ok(!list.body.results.some((d: { title: string }) => d.title === 'Editor Deletes'));
  });

  it('releases the attachments of every removed version', async () => {
    const attachment = await uploaded(t, 'gone.png', await makeImage('png', 10, 10));
    const image = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Gone', attachment: { _id: attachment._id } } });
    assert.equal(image.status, 200, image.text);
    const { cmsDocId } = image.body;
    const usage = async () => (await store.attachments.find([attachment._id]))[0]!.docIds.sort();
    assert.deepEqual(await usage(), [`${cmsDocId}:en:draft`, `${cmsDocId}:en:published`]);
    const res = await t.request('DELETE', `/api/v1/@cms/image/${cmsDocId}:en:draft`, { key: 'editor' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await usage(), []);
    assert.equal((await t.request('GET', `/api/v1/@cms/image/${cmsDocId}:en:published`)).status, 404);
  });
});
