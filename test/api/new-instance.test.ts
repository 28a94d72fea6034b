import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('POST with _newInstance: the defaults of a new document, nothing saved', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function stored(): Promise<number> {
    const drafts = await t.request('GET', '/api/v1/article?cmsMode=draft&count=1');
    const published = await t.request('GET', '/api/v1/article?count=1');
    return drafts.body.count + published.body.count;
  }

  it('answers the schema defaults merged with the rest of the body and stores nothing', async () => {
    const before = await stored();
    const res = await t.request('POST', '/api/v1/article', { body: { _newInstance: true, title: 'Started', _url: '/x' } });
    assert.equal(res.status, 200, res.text);
    const doc = res.body;
    assert.equal(doc.title, 'Started');
    assert.equal(doc.type, 'article');
    assert.equal(doc.visibility, 'public');
    assert.equal(doc.archived, false);
    assert.equal(doc.slug, '');
    assert.deepEqual(doc.tags, []);
    // As the original's newInstance: a relationship is null under its name, its ids come with the first save.
    assert.equal(doc._related, null);
    assert.equal(doc._author, null);
    assert.equal('relatedIds' in doc, false);
    assert.equal('relatedFields' in doc, false);
    assert.deepEqual(doc.links, []);
    assert.equal(doc.body.metaType, 'area');
    assert.deepEqual(doc.body.items, []);
    assert.equal(doc._previewable, true);
    assert.equal('_url' in doc, false);
    assert.equal('_newInstance' in doc, false);
    assert.equal('_id' in doc, false);
    assert.equal(await stored(), before);
  });

  it('inserts what it answered as the original\'s test does, the page\'s _url, _parentUrl and _parentSlug answered', async () => {
    const started = await t.request('POST', '/api/v1/article', { body: { _newInstance: true, title: 'Product 01' } });
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>Product</p>' }] };
    const res = await t.request('POST', '/api/v1/article', { body: { ...started.body, body } });
    assert.equal(res.status, 200, res.text);
    const inserted = res.body;
    assert.equal(inserted.slug, 'product-01');
    assert.equal(inserted._url, 'http://cms.test/articles/product-01');
    assert.equal(inserted._parentUrl, 'http://cms.test/articles');
    assert.equal(inserted._parentSlug, '/articles');
    assert.equal('_previewable' in inserted, false);
    assert.deepEqual(inserted._author, []);
    assert.deepEqual(inserted.authorIds, []);
    const [widget] = inserted.body.items;
    assert.deepEqual([widget.content, widget.cmsPlaceholder, widget.imageIds, widget.permalinkIds], ['<p>Product</p>', false, [], []]);
    // Every read shows them, anonymous ones (the public projection shows _url) too.
    const read = await t.request('GET', `/api/v1/article/${inserted._id}`, { key: null });
    assert.deepEqual([read.body._url, read.body._parentUrl, read.body._parentSlug], [inserted._url, inserted._parentUrl, '/articles']);
  });

  it('says a type without a page is not previewable', async () => {
    const res = await t.request('POST', '/api/v1/note', { body: { _newInstance: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._previewable, false);
    assert.equal(res.body.text, '');
    assert.equal((await t.request('GET', '/api/v1/note?count=1')).body.count, 0);
  });

  it('needs the permission an insert needs', async () => {
    const anonymous = await t.request('POST', '/api/v1/article', { body: { _newInstance: true }, key: null });
    assert.equal(anonymous.status, 403);
    const published = await t.request('POST', '/api/v1/article', { body: { _newInstance: true }, key: 'contributor' });
    assert.equal(published.status, 403);
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { _newInstance: true }, key: 'contributor' });
    assert.equal(draft.status, 200, draft.text);
    const users = await t.request('POST', '/api/v1/@cms/user', { body: { _newInstance: true }, key: 'editor' });
    assert.equal(users.status, 403);
  });
});
