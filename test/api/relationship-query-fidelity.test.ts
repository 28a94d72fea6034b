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
 * projection without `slug` (`_editors`), and to `page`s, whose widgets relate to people.
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
      page: piece({ body: { type: 'area', options: { widgets: { card: {} } } } }, { publicApiProjection: { title: 1, body: 1 } }),
      article: piece(
        {
          _authors: { type: 'relationship', withType: 'person' },
          _reviewers: { type: 'relationship', withType: 'person' },
          _editors: { type: 'relationship', withType: 'person', builders: { project: { title: 1, _url: 1 } } },
          _pages: { type: 'relationship', withType: 'page' },
        },
        { publicApiProjection: { title: 1, _authors: 1, _editors: 1, _pages: 1 }, perPage: 100 },
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
    assert.deepEqual(keysOf(editor), ['_fields', '_id', '_parentUrl', '_url', 'metaType', 'title', 'type']);
    assert.equal(editor._url, 'http://cms.test/people/ada');
  });

  it('gives anonymous relationship items the slug their _url is made of, as the original', async () => {
    const list = await t.request('GET', '/api/v1/article', { key: null });
    assert.equal(list.status, 200, list.text);
    const one = list.body.results.find((doc: Doc) => doc.title === 'One');
    assert.deepEqual(one._authors.map((person: Doc) => person.slug), ['bob', 'ada']);
    assert.deepEqual(keysOf(one._authors[0]), ['_fields', '_id', '_parentUrl', '_url', 'cacheInvalidatedAt', 'metaType', 'slug', 'title', 'type']);
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
      body: { metaType: 'area', items: [{ type: 'card', _person: [people.Ada!._id] }, { type: 'card', _person: [people.Ada!._id] }] },
    });
    const article = await create('article', { title: 'With page', _pages: [page._id, page._id] });
    assert.equal(article._pages.length, 1, 'one related document per id');
    const res = await t.request('GET', `/api/v1/article/${article._id}`);
    const [related] = res.body._pages;
    assert.equal(res.body._pages.length, 1);
    for (const card of related.body.items) {
      assert.deepEqual(card.personIds, [people.Ada!.cmsDocId]);
      assert.equal(card._person, undefined, 'related documents do not load their own relationships');
    }
  });
});
