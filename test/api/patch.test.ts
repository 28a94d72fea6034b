import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('PATCH: plain keys, dot and @ notation, operators, published mode', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function create(body: Record<string, unknown>, query = '') {
    const res = await t.request('POST', `/api/v1/article${query}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  it('patches plain fields, converting values, and leaves the others alone', async () => {
    const doc = await create({ title: 'Patch Me', category: 'a', priority: 1 });
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { category: 'updated', priority: '9' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.category, 'updated');
    assert.equal(res.body.priority, 9);
    assert.equal(res.body.title, 'Patch Me');
    assert.ok(res.body.updatedAt >= doc.updatedAt);
  });

  it('reaches the draft in published mode, keeping unpublished draft changes unpublished', async () => {
    const doc = await create({ title: 'Two Versions', category: 'one' });
    const draftId = `${doc.cmsDocId}:en:draft`;
    await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: 'Draft Title Change' } });
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { category: 'both' } });
    assert.equal(res.body.category, 'both');
    assert.equal(res.body.title, 'Two Versions');
    const draft = await t.request('GET', `/api/v1/article/${draftId}`);
    assert.equal(draft.body.category, 'both');
    assert.equal(draft.body.title, 'Draft Title Change');
    assert.equal(draft.body.modified, true);
  });

  it('keeps an unpublished slug change in the draft when a published-mode patch reaches it', async () => {
    const doc = await create({ title: 'Slug Keeper' });
    const draftId = `${doc.cmsDocId}:en:draft`;
    await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { slug: 'renamed-in-draft' } });
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { category: 'both' } });
    assert.equal(res.body.slug, 'slug-keeper');
    const draft = await t.request('GET', `/api/v1/article/${draftId}`);
    assert.equal(draft.body.slug, 'renamed-in-draft');
    assert.equal(draft.body.category, 'both');
    assert.equal(draft.body.modified, true);
  });

  it('compares the draft with the published version by the slug it is saved with', async () => {
    await create({ title: 'Taken Slug' });
    const doc = await create({ title: 'Taken Slug' });
    assert.equal(doc.slug, 'taken-slug-2');
    const draftId = `${doc.cmsDocId}:en:draft`;
    // "taken-slug" belongs to the other document: the draft keeps "taken-slug-2", as published.
    const res = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { slug: 'taken-slug' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'taken-slug-2');
    assert.equal(res.body.modified, false);
  });

  it('patches a draft only in draft mode and marks it modified', async () => {
    const doc = await create({ title: 'Draft Patch', category: 'x' });
    const res = await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}?cmsMode=draft`, { body: { category: 'y' } });
    assert.equal(res.body.cmsMode, 'draft');
    assert.equal(res.body.modified, true);
    const published = await t.request('GET', `/api/v1/article/${doc._id}`);
    assert.equal(published.body.category, 'x');
  });

  it('supports dot notation and @id notation into areas and arrays', async () => {
    const doc = await create({
      title: 'Nested',
      body: { metaType: 'area', items: [{ type: '@cms/rich-text', content: '<p>one</p>' }] },
      links: [{ label: 'A', url: 'https://a.example' }, { label: 'B' }],
    });
    const widgetId = doc.body.items[0]._id;
    const dotted = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { 'body.items.0.content': '<p>two</p>' } });
    assert.equal(dotted.status, 200, dotted.text);
    assert.equal(dotted.body.body.items[0].content, '<p>two</p>');
    assert.equal(dotted.body.body.items[0]._id, widgetId);
    const atted = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { [`@${widgetId}.content`]: '<p>three</p>' } });
    assert.equal(atted.body.body.items[0].content, '<p>three</p>');
    const itemId = doc.links[1]._id;
    const item = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { [`@${itemId}.label`]: 'Bee' } });
    assert.equal(item.body.links[1].label, 'Bee');
    assert.equal(item.body.links[1]._id, itemId);
  });

  it('applies $set, $unset, $inc, $push, $addToSet, $pull, $pullAll, $pullAllById and $move in one patch', async () => {
    const doc = await create({ title: 'Operators', priority: 1, tags: ['news'], category: 'gone', links: [{ label: 'A' }, { label: 'B' }, { label: 'C' }] });
    const [a, b, c] = doc.links.map((link: { _id: string }) => link._id);
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, {
      body: {
        $set: { title: 'Operators Set' },
        $unset: { category: '' },
        $inc: { priority: 4 },
        $addToSet: { tags: 'tech' },
        $move: { links: { $item: c, $before: a } },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.title, 'Operators Set');
    assert.equal(res.body.category, '');
    assert.equal(res.body.priority, 5);
    assert.deepEqual(res.body.tags, ['news', 'tech']);
    assert.deepEqual(res.body.links.map((link: { _id: string }) => link._id), [c, a, b]);

    const pushed = await t.request('PATCH', `/api/v1/article/${doc._id}`, {
      body: { $push: { links: { $each: [{ label: 'First' }], $position: 0 } }, $pullAll: { tags: ['news'] } },
    });
    assert.equal(pushed.body.links[0].label, 'First');
    assert.equal(pushed.body.links.length, 4);
    assert.deepEqual(pushed.body.tags, ['tech']);

    const pulled = await t.request('PATCH', `/api/v1/article/${doc._id}`, {
      body: { $pullAllById: { links: [a, b] }, $pull: { links: { label: 'First' } } },
    });
    assert.deepEqual(pulled.body.links.map((link: { _id: string }) => link._id), [c]);
  });

  it('validates what operators produce against the field schema', async () => {
    const doc = await create({ title: 'Strict', priority: 99 });
    const over = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { $inc: { priority: 5 } } });
    assert.equal(over.status, 400);
    assert.equal(over.body.data.errors[0].path, 'priority');
    assert.equal(over.body.data.errors[0].name, 'max');
    const badTag = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { $push: { tags: 'nope' } } });
    assert.equal(badTag.status, 400);
    assert.equal(badTag.body.data.errors[0].path, 'tags');
    const after = await t.request('GET', `/api/v1/article/${doc._id}`);
    assert.equal(after.body.priority, 99);
    assert.deepEqual(after.body.tags, []);
  });

  it('refuses unknown operators, pushes onto non-arrays, missing paths and prototype keys', async () => {
    const doc = await create({ title: 'Hostile', category: 'safe' });
    const cases: [Record<string, unknown>, string][] = [
      [{ $rename: { category: 'x' } }, '$rename'],
      [{ $push: { category: 'x' } }, 'category'],
      [{ $set: { nosuchfield: 1 } }, 'nosuchfield'],
      [{ 'body.nothing.here': 'x' }, 'body.nothing.here'],
      [{ 'category.constructor': 'x' }, 'category.constructor'],
      [{ $set: { 'body.__proto__.polluted': 'x' } }, 'body.__proto__.polluted'],
      [{ '@nosuchid.content': 'x' }, '@nosuchid.content'],
      [{ $inc: { priority: 'one' } }, 'priority'],
    ];
    for (const [body, path] of cases) {
      const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.ok(JSON.stringify(res.body).includes(path), `${path} named in ${res.text}`);
    }
    const after = await t.request('GET', `/api/v1/article/${doc._id}`);
    assert.equal(after.body.category, 'safe');
    assert.equal(after.body.updatedAt, doc.updatedAt);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await t.request('PATCH', '/api/v1/article/doesnotexist', { body: { title: 'x' } });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { name: 'notfound', message: 'notfound', data: {} });
  });

  it('archives every version of the locale with archived: true and restores them with false', async () => {
    const doc = await create({ title: 'Archive Me' });
    const archived = await t.request('PATCH', `/api/v1/article/${doc.cmsDocId}:en:draft`, { body: { archived: true } });
    assert.equal(archived.body.archived, true);
    const gone = await t.request('GET', `/api/v1/article/${doc._id}`);
    assert.equal(gone.status, 404);
    const list = await t.request('GET', '/api/v1/article?perPage=100');
    assert.ok(!list.body.results.some((d: { _id: string }) => d._id === doc._id));
    const restored = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { archived: false } });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.archived, false);
    const draft = await t.request('GET', `/api/v1/article/${doc.cmsDocId}:en:draft`);
    assert.equal(draft.body.archived, false);
  });
});
