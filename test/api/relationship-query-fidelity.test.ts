import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { ConfigError } from '../../src/errors/app-error.js';

const piece = (fields: Record<string, unknown>, options: Record<string, unknown> = {}) => ({
  extend: '@cms/piece-type',
  options,
  fields: { add: fields },
});

/**
 * `person` has pages (`_url`) and a public projection that shows `_url` but not `slug`; `article`
 * relates to people twice (`_authors` shown to the public, `_reviewers` not), once through a
 * projection without `slug` (`_editors`), to `page`s, whose widgets relate to people, and, in
 * public, to `desk`s, which anonymous callers may not read.
 */
function fidelityConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    locales: { en: { label: 'English' } },
    apiKeys: { [keys.admin]: { role: 'admin' } },
    widgets: {
      card: { fields: { add: { _person: { type: 'relationship', withType: 'person' } } } },
    },
    modules: {
      person: piece({ bio: { type: 'string' } }, { publicApiProjection: { title: 1, _url: 1 }, pagePath: '/people' }),
      desk: piece({}),
      page: piece({ body: { type: 'area', options: { widgets: { card: {} } } } }, { publicApiProjection: { title: 1, body: 1 } }),
      article: piece(
        {
          _authors: { type: 'relationship', withType: 'person' },
          _reviewers: { type: 'relationship', withType: 'person' },
          _editors: { type: 'relationship', withType: 'person', builders: { project: { title: 1, _url: 1 } } },
          _pages: { type: 'relationship', withType: 'page' },
          _desks: { type: 'relationship', withType: 'desk' },
        },
        { publicApiProjection: { title: 1, _authors: 1, _editors: 1, _pages: 1, _desks: 1 }, perPage: 100 },
      ),
    },
  };
}

type Doc = Record<string, any>;
const keysOf = (doc: Doc) => Object.keys(doc).sort();

describe('relationship query fidelity', () => {
  let t: TestApp;
  const people: Record<string, Doc> = {};
  const create = async (type: string, body: Doc): Promise<Doc> => {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    t = await startTestApp(fidelityConfig());
    // Created out of order: choices come by label, ignoring case.
    for (const title of ['bob', 'Ada', 'Cy']) people[title] = await create('person', { title });
    await create('article', { title: 'One', _authors: [people.bob!._id, people.Ada!._id], _reviewers: [people.Cy!._id] });
    await create('article', { title: 'Two', _authors: [people.Cy!._id] });
  });
  after(() => t.close());

  it('answers a relationship projection without slug with its _url and nothing else', async () => {
    const article = await create('article', { title: 'Edited', _editors: [people.Ada!._id] });
    const [editor] = article._editors;
    assert.deepEqual(keysOf(editor), ['_fields', '_id', '_parentSlug', '_parentUrl', '_url', 'metaType', 'title', 'type']);
    assert.equal(editor._url, 'http://cms.test/people/ada');
  });

  it('answers GET one as the list: a projection without a relationship or slug shows only what it names', async () => {
    // The original's "people cannot find things via a relationship with an inadequate projection".
    const one = (await t.request('GET', '/api/v1/article?title=One')).body.results[0];
    for (const url of [`/api/v1/article/${one._id}?project[title]=1`, '/api/v1/article?title=One&project[title]=1']) {
      const res = await t.request('GET', url);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(keysOf(res.body.results?.[0] ?? res.body), ['_id', 'metaType', 'title', 'type'], url);
    }
    const related = await t.request('GET', `/api/v1/article/${one._id}?project[title]=1&project[_authors]=1`);
    assert.deepEqual(keysOf(related.body), ['_authors', '_id', 'metaType', 'title', 'type']);
    assert.deepEqual(related.body._authors.map((person: Doc) => person.title), ['bob', 'Ada']);
    const excluded = await t.request('GET', `/api/v1/article/${one._id}?project[_authors]=0&project[slug]=0`);
    assert.equal(excluded.body.title, 'One');
    assert.equal('slug' in excluded.body, false);
    assert.equal('_authors' in excluded.body, false);
    assert.equal((await t.request('GET', `/api/v1/article/${one._id}?project=title`)).status, 400);
  });

  it('gives anonymous relationship items the slug their _url is made of, as the original', async () => {
    const list = await t.request('GET', '/api/v1/article', { key: null });
    assert.equal(list.status, 200, list.text);
    const one = list.body.results.find((doc: Doc) => doc.title === 'One');
    assert.deepEqual(one._authors.map((person: Doc) => person.slug), ['bob', 'ada']);
    assert.deepEqual(keysOf(one._authors[0]), ['_fields', '_id', '_parentSlug', '_parentUrl', '_url', 'cacheInvalidatedAt', 'metaType', 'slug', 'title', 'type']);
    assert.equal(one._authors[0]._url, 'http://cms.test/people/bob');
    assert.equal(one._reviewers, undefined, 'not projected');
  });

  it('offers relationship choices and counts with full _id, slug, type, metaType and label, by label', async () => {
    const res = await t.request('GET', '/api/v1/article?choices=_authors,authors&counts=_authors');
    assert.equal(res.status, 200, res.text);
    const expected = ['Ada', 'bob', 'Cy'].map((title) => ({
      value: people[title]!._id,
      label: title,
      slug: title.toLowerCase(),
      type: 'person',
      metaType: 'doc',
    }));
    assert.deepEqual(res.body.choices._authors, expected);
    assert.deepEqual(res.body.counts._authors, expected.map((choice) => ({ ...choice, count: 1 })));
    assert.deepEqual(
      res.body.choices.authors,
      expected.map(({ value, slug, ...rest }) => ({ value: slug, ...rest, _id: value })).map(({ value, label, _id, type, metaType }) => ({ value, label, _id, type, metaType })),
    );
  });

  it('gives anonymous callers the choices of projected relationships only', async () => {
    const res = await t.request('GET', '/api/v1/article?choices=_authors,_reviewers,reviewers', { key: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body.choices), ['_authors']);
    assert.deepEqual(res.body.choices._authors.map((choice: Doc) => choice.value), ['Ada', 'bob', 'Cy'].map((title) => people[title]!._id));
  });

  it('answers anonymous choices of a projected relationship as an array, empty when its type is not theirs to read', async () => {
    const desk = await create('desk', { title: 'Night desk' });
    await create('article', { title: 'Desked', _desks: [desk._id] });
    const admin = await t.request('GET', '/api/v1/article?choices=desks');
    assert.deepEqual(admin.body.choices.desks.map((choice: Doc) => choice.label), ['Night desk']);
    // As the original's: each projected filter named has its list; these hold no desk the caller cannot read.
    const res = await t.request('GET', '/api/v1/article?choices=_desks,desks,_authors,authors&counts=desks', { key: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.choices._desks, []);
    assert.deepEqual(res.body.choices.desks, []);
    assert.deepEqual(res.body.counts, { desks: [] });
    // People are public: the original's "?choices=author returns the related choices", by slug.
    assert.equal(res.body.choices._authors.length, 3);
    assert.deepEqual(res.body.choices.authors.map((choice: Doc) => choice.value), ['ada', 'bob', 'cy']);
    // The filter itself still selects nothing it could tell apart: it is ignored.
    const filtered = await t.request('GET', `/api/v1/article?desks=night-desk&count=1`, { key: null });
    assert.equal(filtered.body.count, (await t.request('GET', '/api/v1/article?count=1', { key: null })).body.count);
  });

  it('refuses dynamicChoices with a 400, as the original refuses a method no filter offers: none does here', async () => {
    for (const key of ['admin', null] as const) {
      const res = await t.request('GET', '/api/v1/article?dynamicChoices[]=normalMethod()', { key });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.name, 'invalid');
      assert.deepEqual(res.body.data, { parameter: 'dynamicChoices' });
      assert.match(res.body.message, /normalMethod\(\)/);
    }
    assert.equal((await t.request('GET', '/api/v1/article?dynamicChoices=title')).status, 400);
    assert.equal((await t.request('GET', '/api/v1/article?dynamicChoices=')).status, 200);
  });

  it('refuses choices that name a server method: this project has no dynamic choices', async () => {
    const config = fidelityConfig();
    (config.modules as Doc).article.fields.add.kind = { type: 'select', choices: 'getKinds' };
    await assert.rejects(
      loadAppConfig({ config, env: { CMS_DATA_DIR: t.dataDir }, cwd: t.dataDir }),
      (error: unknown) => error instanceof ConfigError && /choices/.test(error.message),
    );
  });

  it('loads relationships inside the widgets of a related document once, without duplicates', async () => {
    const page = await create('page', {
      title: 'Cards',
      body: { metaType: 'area', items: [{ type: 'card', _person: [people.Ada!._id] }, { type: 'card', _person: [people.bob!._id, people.Ada!._id] }] },
    });
    const article = await create('article', { title: 'With page', _pages: [page._id, page._id] });
    assert.equal(article._pages.length, 1, 'one related document per id');
    for (const title of ['Also with page', 'Third with page']) await create('article', { title, _pages: [page._id] });
    // As the original's PRO-8108 test: several documents of a list relate to one document whose
    // widgets relate to others; each widget shows its related documents once.
    const list = await t.request('GET', '/api/v1/article?_pages[]=' + page.cmsDocId);
    assert.equal(list.status, 200);
    assert.equal(list.body.results.length, 3);
    for (const result of list.body.results) {
      assert.equal(result._pages.length, 1);
      const [first, second] = result._pages[0].body.items;
      assert.deepEqual(first._person.map((p: Doc) => p.title), ['Ada']);
      assert.deepEqual(second._person.map((p: Doc) => p.title), ['bob', 'Ada']);
      assert.deepEqual(second.personIds, [people.bob!.cmsDocId, people.Ada!.cmsDocId]);
    }
    // The documents those widgets relate to answer as related documents do, with their _fields.
    const res = await t.request('GET', `/api/v1/article/${article._id}`);
    const person = res.body._pages[0].body.items[0]._person[0];
    assert.equal(person.title, 'Ada');
    assert.equal(person._fields !== undefined, true);
  });

  it('shows anonymous callers the widgets of a related document as its projection does', async () => {
    const res = await t.request('GET', '/api/v1/article?title=with%20page', { key: null });
    assert.equal(res.status, 200);
    const [result] = res.body.results.filter((r: Doc) => r.title === 'With page');
    const [card] = result._pages[0].body.items;
    // person's projection shows title and _url (with the slug it is made of), nothing else.
    assert.deepEqual(card._person.map((p: Doc) => p.title), ['Ada']);
    assert.equal(card._person[0].bio, undefined);
  });
});
