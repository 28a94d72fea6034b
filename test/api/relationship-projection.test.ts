import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';

const piece = (fields: Record<string, unknown>, options: Record<string, unknown> = {}) => ({
  extend: '@cms/piece-type',
  options,
  fields: { add: fields },
});

/** A relationship to `author` whose per-relationship fields are what must not leak. */
const toAuthor = { type: 'relationship', withType: 'author', fields: { add: { fee: { type: 'integer' }, note: { type: 'string' } } } };

/**
 * `author` shows its reverse relationships publicly. `article` hides its `_author` (and full
 * access to it needs an editor: a contributor reads it through its projection too); `review`
 * shows its `_author`, so its `_fields` are public from either side.
 */
function projectionConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    locales: { en: { label: 'English' } },
    apiKeys: { [keys.admin]: { role: 'admin' }, [keys.contributor]: { role: 'contributor' }, [keys.guest]: { role: 'guest' } },
    modules: {
      author: piece(
        {
          bio: { type: 'string' },
          _articles: { type: 'relationshipReverse', withType: 'article', reverseOf: '_author' },
          _reviews: { type: 'relationshipReverse', withType: 'review' },
        },
        { publicApiProjection: { title: 1, _articles: 1, _reviews: 1 } },
      ),
      article: piece({ summary: { type: 'string' }, _author: toAuthor }, { publicApiProjection: { title: 1 }, viewRole: 'editor' }),
      review: piece({ verdict: { type: 'string' }, _author: toAuthor }, { publicApiProjection: { title: 1, _author: 1 } }),
    },
  };
}

type Doc = Record<string, unknown>;
const keysOf = (doc: unknown) => Object.keys(doc as Doc).sort();
const projectedArticle = ['_id', 'cacheInvalidatedAt', 'metaType', 'title', 'type'];
const projectedReview = ['_fields', '_id', 'cacheInvalidatedAt', 'metaType', 'title', 'type'];

describe('relationships under a public projection', () => {
  let t: TestApp;
  let author: Doc;
  const create = async (type: string, body: Doc) => {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body as Doc;
  };
  before(async () => {
    t = await startTestApp(projectionConfig());
    author = await create('author', { title: 'Projected Author', bio: 'private bio' });
    const fields = { fee: 500, note: 'paid late' };
    await create('article', { title: 'Paid Article', summary: 'private summary', _author: [{ _id: author._id, _fields: fields }] });
    await create('review', { title: 'Public Review', verdict: 'private verdict', _author: [{ _id: author._id, _fields: fields }] });
  });
  after(() => t.close());

  /** The author as one caller reads it: through GET one and the list, with areas rendered or not. */
  async function authorsAs(key: keyof typeof keys | null, id = String(author._id)): Promise<Doc[]> {
    const read: Doc[] = [];
    for (const url of [`/api/v1/author/${id}`, `/api/v1/author/${id}?renderAreas=true`]) {
      const res = await t.request('GET', url, { key });
      assert.equal(res.status, 200, res.text);
      read.push(res.body);
    }
    const mode = id.endsWith(':draft') ? '&cmsMode=draft' : '';
    for (const url of [`/api/v1/author?title=Projected${mode}`, `/api/v1/author?renderAreas=true${mode}`]) {
      const res = await t.request('GET', url, { key });
      assert.equal(res.status, 200, res.text);
      read.push(...(res.body.results as Doc[]).filter((doc) => doc.title === 'Projected Author'));
    }
    assert.equal(read.length, 4);
    return read;
  }

  function assertProjectedReverse(doc: Doc): void {
    const [article] = doc._articles as Doc[];
    assert.deepEqual(keysOf(article), projectedArticle, 'article hides _author, so its _fields too');
    assert.equal(article!.title, 'Paid Article');
    const [review] = doc._reviews as Doc[];
    assert.deepEqual(review!._fields, { fee: 500, note: 'paid late' }, 'review shows _author, so its _fields too');
  }

  it('shows an anonymous caller and a guest key only what the related type\'s projection shows, in reverse', async () => {
    for (const key of [null, 'guest'] as const) {
      for (const doc of await authorsAs(key)) {
        assert.deepEqual(keysOf(doc), ['_articles', '_id', '_reviews', 'cacheInvalidatedAt', 'metaType', 'title', 'type']);
        assertProjectedReverse(doc);
        assert.deepEqual(keysOf((doc._reviews as Doc[])[0]), projectedReview);
      }
    }
  });

  it('shows the same of a related document forward: the holder\'s shown relationship brings its _fields', async () => {
    for (const key of [null, 'guest'] as const) {
      const res = await t.request('GET', '/api/v1/review', { key });
      assert.equal(res.status, 200, res.text);
      const [review] = res.body.results as Doc[];
      assert.deepEqual(keysOf(review), ['_author', '_id', 'cacheInvalidatedAt', 'metaType', 'title', 'type']);
      const [related] = review!._author as Doc[];
      assert.deepEqual(keysOf(related), ['_fields', '_id', 'cacheInvalidatedAt', 'metaType', 'title', 'type'], 'no bio, no reverse relationships');
      assert.deepEqual(related!._fields, { fee: 500, note: 'paid late' });
      const articles = await t.request('GET', '/api/v1/article', { key });
      assert.deepEqual(keysOf(articles.body.results[0]), projectedArticle);
    }
  });

  it('projects related documents for a contributor reading drafts of a type it fully reads', async () => {
    for (const doc of await authorsAs('contributor', `${author.cmsDocId}:en:draft`)) {
      assert.equal(doc.bio, 'private bio', 'the contributor reads authors in full');
      assertProjectedReverse(doc);
      assert.equal((doc._reviews as Doc[])[0]!.verdict, 'private verdict', 'and reviews');
    }
  });

  it('shows _fields to callers with full access, and never serves their answer to anonymous callers', async () => {
    // A URL nobody read before: the admin's answer is the first one built for it.
    const url = `/api/v1/author?perPage=7`;
    const admin = await t.request('GET', url);
    const [article] = admin.body.results[0]._articles as Doc[];
    assert.deepEqual(article!._fields, { fee: 500, note: 'paid late' });
    assert.equal(article!.summary, 'private summary');
    for (const key of [null, 'guest', 'contributor'] as const) {
      const other = await t.request('GET', url, { key });
      assert.deepEqual(keysOf(other.body.results[0]._articles[0]), projectedArticle);
    }
  });
});
