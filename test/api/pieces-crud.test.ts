import { describe, it, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, docIdPattern, isoDate, type TestApp } from '../helpers/test-app.js';

describe('piece endpoints: insert, get, list, replace', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('inserts a published article with every bookkeeping property, and its draft', async () => {
    const res = await t.request('POST', '/api/v1/article', {
      body: { title: 'Hello World', category: 'news', priority: '5', tags: ['news', 'tech'], unknownProp: 'dropped' },
    });
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.match(doc.cmsDocId, docIdPattern);
    assert.equal(doc._id, `${doc.cmsDocId}:en:published`);
    assert.equal(doc.cmsLocale, 'en:published');
    assert.equal(doc.cmsMode, 'published');
    assert.equal(doc.type, 'article');
    assert.equal(doc.metaType, 'doc');
    assert.equal(doc.title, 'Hello World');
    assert.equal(doc.slug, 'hello-world');
    assert.equal(doc.category, 'news');
    assert.equal(doc.priority, 5);
    assert.deepEqual(doc.tags, ['news', 'tech']);
    assert.equal(doc.visibility, 'public');
    assert.equal(doc.archived, false);
    assert.equal(doc.color, null);
    assert.deepEqual(doc.authorIds, []);
    assert.deepEqual(doc.authorFields, {});
    assert.deepEqual(doc._author, []);
    assert.equal(doc.body.metaType, 'area');
    assert.deepEqual(doc.body.items, []);
    assert.equal(doc.body._docId, doc._id);
    assert.match(doc.createdAt, isoDate);
    assert.match(doc.updatedAt, isoDate);
    assert.match(doc.lastPublishedAt, isoDate);
    assert.deepEqual(doc.updatedBy, { _id: null, title: 'System Task', username: null });
    assert.equal(doc.titleSortified, 'hello world');
    assert.equal(doc._edit, true);
    assert.equal(doc._publish, true);
    assert.equal(doc._url, 'http://cms.test/articles/hello-world');
    assert.equal(doc._parentUrl, 'http://cms.test/articles');
    assert.equal('modified' in doc, false);
    assert.equal('unknownProp' in doc, false);

    const draft = await t.request('GET', `/api/v1/article/${doc.cmsDocId}:en:draft`);
    assert.equal(draft.status, 200);
    assert.equal(draft.body._id, `${doc.cmsDocId}:en:draft`);
    assert.equal(draft.body.cmsMode, 'draft');
    assert.equal(draft.body.modified, false);
    assert.equal(draft.body.title, 'Hello World');
    assert.equal(draft.body.lastPublishedAt, doc.lastPublishedAt);
  });

  it('inserts a draft only with cmsMode=draft', async () => {
    const res = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Draft Only' } });
    assert.equal(res.status, 200);
    assert.equal(res.body._id, `${res.body.cmsDocId}:en:draft`);
    assert.equal(res.body.modified, true);
    assert.equal('lastPublishedAt' in res.body, false);
    const published = await t.request('GET', `/api/v1/article/${res.body.cmsDocId}:en:published`);
    assert.equal(published.status, 404);
    assert.deepEqual(published.body, { name: 'notfound', message: 'notfound', data: {} });
  });

  it('makes slugs unique per locale and mode with -2, -3 suffixes', async () => {
    const second = await t.request('POST', '/api/v1/article', { body: { title: 'Hello World' } });
    const third = await t.request('POST', '/api/v1/article', { body: { title: 'Hello, world!' } });
    assert.equal(second.body.slug, 'hello-world-2');
    assert.equal(third.body.slug, 'hello-world-3');
    const spanish = await t.request('POST', '/api/v1/article?cmsLocale=es', { body: { title: 'Hello World' } });
    assert.equal(spanish.body.slug, 'hello-world');
    assert.equal(spanish.body._id, `${spanish.body.cmsDocId}:es:published`);
    assert.equal(spanish.body._url, 'http://cms.test/es/articles/hello-world');
  });

  it('gets one by full _id, by bare cmsDocId, and lets cmsMode/cmsLocale override the _id', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Resolve Me' } });
    const { cmsDocId } = created.body;
    const bare = await t.request('GET', `/api/v1/article/${cmsDocId}`);
    assert.equal(bare.status, 200);
    assert.equal(bare.body._id, `${cmsDocId}:en:published`);
    const overridden = await t.request('GET', `/api/v1/article/${cmsDocId}:en:published?cmsMode=draft`);
    assert.equal(overridden.body._id, `${cmsDocId}:en:draft`);
    const otherLocale = await t.request('GET', `/api/v1/article/${cmsDocId}:en:published?cmsLocale=es`);
    assert.equal(otherLocale.status, 404);
    const unknown = await t.request('GET', '/api/v1/article/doesnotexist');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.name, 'notfound');
  });

  it('lists with pages/currentPage/results, 10 a page by default, newest update first', async () => {
    // Two inserts in one millisecond share updatedAt, and their order is then the id tie-break's:
    // the clock (Date) moves on 2 ms between inserts.
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      for (let i = 0; i < 12; i++) {
        await t.request('POST', '/api/v1/note', { body: { title: `Note ${i}` } });
        mock.timers.tick(2);
      }
    } finally {
      mock.timers.reset();
    }
    const first = await t.request('GET', '/api/v1/note');
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['currentPage', 'nextCursor', 'pages', 'results']);
    assert.equal(first.body.pages, 2);
    assert.equal(first.body.currentPage, 1);
    assert.equal(first.body.results.length, 10);
    assert.equal(first.body.results[0].title, 'Note 11');
    const second = await t.request('GET', '/api/v1/note?page=2');
    assert.equal(second.body.results.length, 2);
    assert.equal(second.body.currentPage, 2);
    const beyond = await t.request('GET', '/api/v1/note?page=9');
    assert.deepEqual(beyond.body, { pages: 2, currentPage: 9, nextCursor: null, results: [] });
    const small = await t.request('GET', '/api/v1/note?perPage=5&page=3');
    assert.equal(small.body.pages, 3);
    assert.equal(small.body.results.length, 2);
    const capped = await t.request('GET', '/api/v1/note?perPage=100000');
    assert.equal(capped.status, 200);
    assert.equal(capped.body.results.length, 12);
    assert.equal(capped.body.pages, 1);
  });

  it('lists drafts with cmsMode=draft and another locale with cmsLocale', async () => {
    const drafts = await t.request('GET', '/api/v1/article?cmsMode=draft&perPage=100');
    assert.ok(drafts.body.results.every((doc: { cmsMode: string }) => doc.cmsMode === 'draft'));
    assert.ok(drafts.body.results.some((doc: { title: string }) => doc.title === 'Draft Only'));
    const spanish = await t.request('GET', '/api/v1/article?cmsLocale=es');
    assert.equal(spanish.body.results.length, 1);
    assert.equal(spanish.body.results[0].cmsLocale, 'es:published');
  });

  it('replaces fully with PUT: omitted fields reset, archived kept, slug from the new title', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Put Me', category: 'c', priority: 3 } });
    const res = await t.request('PUT', `/api/v1/article/${created.body._id}`, { body: { title: 'Put Me Again', slug: '' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.title, 'Put Me Again');
    assert.equal(res.body.slug, 'put-me-again');
    assert.equal(res.body.category, '');
    assert.equal(res.body.priority, null);
    assert.equal(res.body.archived, false);
    assert.equal(res.body.createdAt, created.body.createdAt);
    assert.equal(res.body._id, created.body._id);
    const draft = await t.request('GET', `/api/v1/article/${created.body.cmsDocId}?cmsMode=draft`);
    assert.equal(draft.body.title, 'Put Me Again');
    assert.equal(draft.body.modified, false);
  });

  it('refuses PUT without the required title and changes nothing', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Keep Me' } });
    const res = await t.request('PUT', `/api/v1/article/${created.body._id}`, { body: { category: 'put-only' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      name: 'invalid',
      message: 'invalid',
      data: { errors: [{ name: 'required', code: 422, message: 'required', path: 'title', data: {} }] },
    });
    const after = await t.request('GET', `/api/v1/article/${created.body._id}`);
    assert.equal(after.body.title, 'Keep Me');
    assert.equal(after.body.updatedAt, created.body.updatedAt);
  });

  it('answers 404 in the error shape for unknown piece types and routes', async () => {
    const res = await t.request('GET', '/api/v1/nosuchtype');
    assert.equal(res.status, 404);
    assert.equal(res.body.name, 'notfound');
    assert.deepEqual(res.body.data, { knownTypes: ['@cms/user', '@cms/image', '@cms/file', '@cms/image-tag', '@cms/file-tag', 'article', 'note'] });
    const route = await t.request('GET', '/nosuchroute');
    assert.deepEqual(route.body, { name: 'notfound', message: 'notfound', data: {} });
  });

  it('serves /health without authentication', async () => {
    const res = await t.request('GET', '/health', { key: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
  });
});
