import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeImage, makePdf, uploaded } from '../helpers/media.js';

describe('media tags', () => {
  let t: TestApp;

  async function created(type: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  const titles = (res: { status: number; text: string; body: any }) => {
    assert.equal(res.status, 200, res.text);
    return res.body.results.map((doc: any) => doc.title).sort();
  };

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('has the @cms/image-tag and @cms/file-tag piece types, autopublished, edited by editors', async () => {
    const tag = await created('@cms/image-tag', { title: 'Harbour' });
    assert.equal(tag.type, '@cms/image-tag');
    assert.equal(tag.slug, 'harbour');
    const published = await t.request('GET', `/api/v1/@cms/image-tag/${tag.cmsDocId}:en:published`);
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body.title, 'Harbour');
    const fileTag = await created('@cms/file-tag', { title: 'Reports' });
    assert.equal(fileTag.type, '@cms/file-tag');
    const contributor = await t.request('POST', '/api/v1/@cms/image-tag', { body: { title: 'Nope' }, key: 'contributor' });
    assert.equal(contributor.status, 403, contributor.text);
    assert.equal(contributor.body.name, 'forbidden');
    const schema = await t.request('GET', '/api/v1/@cms/schema');
    assert.equal(schema.status, 200, schema.text);
    const imageTags = schema.body.types['@cms/image'].fields.find((field: any) => field.name === '_tags');
    assert.equal(imageTags.withType, '@cms/image-tag');
    const fileTags = schema.body.types['@cms/file'].fields.find((field: any) => field.name === '_tags');
    assert.equal(fileTags.withType, '@cms/file-tag');
  });

  it('tags images through _tags (tagsIds stored, _tags expanded), and files likewise', async () => {
    const sea = await created('@cms/image-tag', { title: 'Sea' });
    const image = await created('@cms/image', {
      title: 'Waves',
      attachment: { _id: (await uploaded(t, 'waves.png', await makeImage('png', 20, 10)))._id },
      _tags: [{ _id: sea._id }],
    });
    assert.deepEqual(image.tagsIds, [sea.cmsDocId]);
    assert.deepEqual(image._tags.map((tag: any) => tag.title), ['Sea']);
    const report = await created('@cms/file-tag', { title: 'Annual' });
    const file = await created('@cms/file', {
      title: 'Report',
      attachment: { _id: (await uploaded(t, 'report.pdf', makePdf()))._id },
      _tags: [{ _id: report._id }],
    });
    assert.deepEqual(file._tags.map((tag: any) => tag.title), ['Annual']);
    // An image tag is not a file tag: the relationship keeps only tags of its type.
    const wrong = await t.request('PATCH', `/api/v1/@cms/file/${file._id}`, { body: { _tags: [{ _id: sea._id }] } });
    assert.equal(wrong.status, 200, wrong.text);
    assert.deepEqual(wrong.body.tagsIds, []);
  });

  it('filters images by one tag, by any of several (_tags[]), by all of them (_tagsAnd[]), by slug (tags), and untagged (none)', async () => {
    const red = await created('@cms/image-tag', { title: 'Red' });
    const round = await created('@cms/image-tag', { title: 'Round' });
    const image = async (title: string, tags: Record<string, any>[]) =>
      created('@cms/image', {
        title,
        attachment: { _id: (await uploaded(t, `${title.toLowerCase()}.png`, await makeImage('png', 8, 8)))._id },
        _tags: tags.map((tag) => ({ _id: tag._id })),
      });
    await image('Apple', [red, round]);
    await image('Brick', [red]);
    await image('Moon', [round]);
    await image('Plain', []);
    const list = (query: string) => t.request('GET', `/api/v1/@cms/image?perPage=50&${query}`);
    assert.deepEqual(titles(await list(`_tags=${red.cmsDocId}`)), ['Apple', 'Brick']);
    assert.deepEqual(titles(await list(`_tags[]=${red.cmsDocId}&_tags[]=${round.cmsDocId}`)), ['Apple', 'Brick', 'Moon']);
    assert.deepEqual(titles(await list(`_tagsAnd[]=${red.cmsDocId}&_tagsAnd[]=${round.cmsDocId}`)), ['Apple']);
    assert.deepEqual(titles(await list('tags=round')), ['Apple', 'Moon']);
    assert.ok(titles(await list('_tags=none')).includes('Plain'));
    assert.ok(!titles(await list('_tags=none')).includes('Apple'));
    const bad = await list('_tags[a]=b');
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.name, 'invalid');
  });

  it('refuses hostile _tags writes with 400 or 403, never 500, and names no tag by a text too long to match', async () => {
    await created('@cms/image-tag', { title: 'Harbour lights' });
    const image = await created('@cms/image', { title: 'Quay', attachment: { _id: (await uploaded(t, 'quay.png', await makeImage('png', 8, 8)))._id } });
    const write = (body: unknown, key?: 'contributor' | 'guest') => t.request('PATCH', `/api/v1/@cms/image/${image._id}`, { body, key });
    for (const tags of [5, { _id: 'x' }, [{ _id: { $ne: 1 } }], [{ _id: 5 }], [null]]) {
      const res = await write({ _tags: tags });
      assert.equal(res.status, 400, `${JSON.stringify(tags)}: ${res.text}`);
      assert.equal(res.body.data.errors[0].path.split('.')[0], '_tags');
    }
    const proto = await t.request('PATCH', `/api/v1/@cms/image/${image._id}`, { payload: '{"_tags":[{"__proto__":{"_id":"x"}}]}', headers: { 'content-type': 'application/json' } });
    assert.equal(proto.status, 400, proto.text);
    // Past SQLite's 50,000-byte LIKE pattern: looked up as a title, it names no tag.
    const long = await write({ _tags: [{ _id: 'a'.repeat(60_000) }] });
    assert.equal(long.status, 200, long.text);
    assert.deepEqual(long.body.tagsIds, []);
    for (const key of ['contributor', 'guest'] as const) {
      const res = await write({ _tags: [] }, key);
      assert.equal(res.status, 403, `${key}: ${res.text}`);
    }
  });
});
