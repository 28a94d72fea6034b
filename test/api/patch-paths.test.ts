import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

describe('PATCH paths: array indexes, nested _patches and the number of operations', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_PATCH_OPERATIONS: '50', CMS_LIMIT_ARRAY_ITEMS: '60000' });
  });
  after(() => t.close());

  async function create(): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/article', {
      body: {
        title: 'Indexed',
        tags: ['news'],
        body: { metaType: 'area', items: [{ type: '@cms/rich-text', content: '<p>one</p>' }] },
        links: [{ label: 'A' }, { label: 'B' }],
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** A short 400 naming the path, fast, and the stored document unchanged. */
  async function assertRefused(doc: Record<string, any>, body: Record<string, unknown>, named: string) {
    const started = Date.now();
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body });
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`);
    assert.ok(Date.now() - started < 2000, 'answered fast');
    assert.ok(res.text.length < 1024, `short body (${res.text.length} bytes)`);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
    assert.equal(res.body.name, 'invalid');
    assert.ok(res.text.includes(named), `${named} named in ${res.text}`);
    const after = await t.request('GET', `/api/v1/article/${doc.cmsDocId}:en:draft`);
    assert.equal(after.body.updatedAt, doc.updatedAt);
    assert.deepEqual(after.body.tags, ['news']);
    assert.equal(after.body.links.length, 2);
    assert.equal(after.body.body.items.length, 1);
  }

  it('refuses an index far past the end of an array, in every operator, with a short 400', async () => {
    const doc = await create();
    const widget = { type: '@cms/rich-text', content: '<p>x</p>' };
    const cases: [Record<string, unknown>, string][] = [
      [{ 'body.items.4294967294': widget }, 'body.items.4294967294'],
      [{ 'body.items.5000000': widget }, 'body.items.5000000'],
      [{ 'tags.1000000000': 'tech' }, 'tags.1000000000'],
      [{ 'tags.2': 'tech' }, 'tags.2'],
      [{ $set: { 'links.3': { label: 'far' } } }, 'links.3'],
      [{ $unset: { 'tags.1000000000': '' } }, 'tags.1000000000'],
      [{ $push: { 'body.items.900000000.list': 'x' } }, 'body.items.900000000.list'],
      [{ $inc: { 'links.7.count': 1 } }, 'links.7.count'],
      [{ 'links.99999999.label': 'x' }, 'links.99999999.label'],
      [{ [`@${doc.body._id}.items.4294967294`]: widget }, `@${doc.body._id}.items.4294967294`],
      [{ _patches: [{ 'tags.1000000000': 'tech' }] }, 'tags.1000000000'],
    ];
    for (const [body, path] of cases) await assertRefused(doc, body, path);
  });

  it('refuses indexes that are not plain decimal integers', async () => {
    const doc = await create();
    for (const index of ['01', '1e3', '-1', '0x1', '1.0', ' 1', '+1', 'length', '１']) {
      await assertRefused(doc, { [`tags.${index}`]: 'tech' }, `tags.${index}`);
      await assertRefused(doc, { [`links.${index}.label`]: 'x' }, `links.${index}.label`);
    }
  });

  it('appends at index == length and replaces at an existing index', async () => {
    const doc = await create();
    const appended = await t.request('PATCH', `/api/v1/article/${doc._id}`, {
      body: { 'tags.1': 'tech', 'links.2': { label: 'C' }, 'body.items.1': { type: '@cms/rich-text', content: '<p>two</p>' } },
    });
    assert.equal(appended.status, 200, appended.text);
    assert.deepEqual(appended.body.tags, ['news', 'tech']);
    assert.deepEqual(appended.body.links.map((l: { label: string }) => l.label), ['A', 'B', 'C']);
    assert.deepEqual(appended.body.body.items.map((w: { content: string }) => w.content), ['<p>one</p>', '<p>two</p>']);
    const replaced = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { 'links.0.label': 'Z', 'tags.0': 'tech' } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.links[0].label, 'Z');
    assert.deepEqual(replaced.body.tags, ['tech']);
  });

  it('refuses _patches inside _patches, naming where', async () => {
    const doc = await create();
    await assertRefused(doc, { _patches: [{ category: 'x' }, { _patches: [{ category: 'y' }] }] }, '_patches.1._patches');
  });

  it('refuses more operations than limits.patchOperations, counting those in _patches', async () => {
    const doc = await create();
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`category${i}`, 'x']));
    await assertRefused(doc, many, 'patchOperations');
    const spread = { _patches: Array.from({ length: 26 }, () => ({ category: 'x', priority: 1 })) };
    await assertRefused(doc, spread, 'patchOperations');
    const fifty = { _patches: Array.from({ length: 25 }, () => ({ category: 'x', priority: 1 })) };
    const ok = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: fifty });
    assert.equal(ok.status, 200, ok.text);
  });

  it('answers $addToSet and $pullAll with long lists in linear time', async () => {
    const doc = await create();
    // Pairwise comparison took 40 s for 20,000 items; linear work takes well under a second.
    const many = Array.from({ length: 50000 }, (_, i) => i);
    await assertRefused(doc, { $addToSet: { tags: { $each: many } } }, 'tags');
    const started = Date.now();
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, {
      body: { $addToSet: { tags: { $each: ['tech', 'news', 'tech'] } }, $pullAll: { links: many.map((i) => ({ label: String(i) })) } },
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(Date.now() - started < 2000, 'answered fast');
    assert.deepEqual(res.body.tags, ['news', 'tech']);
    assert.equal(res.body.links.length, 2);
  });

  it('keeps a long hostile path out of the error body', async () => {
    const doc = await create();
    const long = `tags.${'9'.repeat(20000)}`;
    const res = await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { [long]: 'x' } });
    assert.equal(res.status, 400);
    assert.ok(res.text.length < 1024, `short body (${res.text.length} bytes)`);
    assert.ok(res.text.includes('tags.999'));
  });
});
