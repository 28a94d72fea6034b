import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';

/**
 * What the admin's localize dialog and media picker rely on: an image localized over the API is
 * published in its new locale at once (images autopublish, facts 4.5), so a published document
 * of that locale shows it; and a contributor, who may not read users, is answered the ids of an
 * article's author but not the user.
 */
describe('localizing media, and relationships a role may not read', () => {
  let t: TestApp;
  before(async () => {
    // The fixture article plus a hero image.
    const config = testConfig() as { modules: { article: { fields: { add: Record<string, unknown> } } } };
    config.modules.article.fields.add._hero = { type: 'relationship', withType: '@cms/image', max: 1 };
    t = await startTestApp(config);
  });
  after(() => t.close());

  async function imagePiece(title: string) {
    const attachment = await uploaded(t, 'dot.png', await makeImage('png', 4, 3));
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: attachment._id } } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  it('publishes an image in the locale it is localized to, and a published document there shows it', async () => {
    const image = await imagePiece('Harbour');
    const absent = await t.request('GET', `/api/v1/@cms/image/${image.cmsDocId}?cmsLocale=es&cmsMode=published`);
    assert.equal(absent.status, 404);
    const localized = await t.request('POST', `/api/v1/@cms/image/${image.cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' } });
    assert.equal(localized.status, 200, localized.text);
    assert.equal(localized.body._id, `${image.cmsDocId}:es:draft`);
    assert.equal(localized.body.modified, false, 'the draft is published as it is');
    assert.equal(typeof localized.body.lastPublishedAt, 'string');

    const published = await t.request('GET', `/api/v1/@cms/image/${image.cmsDocId}?cmsLocale=es`, { key: null });
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body.title, 'Harbour');
    assert.equal(published.body.attachment._id, image.attachment._id, 'the same file in both locales');

    const article = await t.request('POST', '/api/v1/article?cmsLocale=es', {
      body: { title: 'Puerto', _hero: [{ _id: image.cmsDocId }] },
    });
    assert.equal(article.status, 200, article.text);
    const read = await t.request('GET', `/api/v1/article/${article.body.cmsDocId}?cmsLocale=es`);
    assert.deepEqual(read.body._hero.map((doc: { _id: string }) => doc._id), [`${image.cmsDocId}:es:published`]);
  });

  it('refuses a contributor localizing an image, writing nothing', async () => {
    const image = await imagePiece('Quay');
    const refused = await t.request('POST', `/api/v1/@cms/image/${image.cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' }, key: 'contributor' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.name, 'forbidden');
    assert.equal((await t.request('GET', `/api/v1/@cms/image/${image.cmsDocId}?cmsLocale=es&cmsMode=draft`)).status, 404);
  });

  it("answers a contributor an article's author ids but not the user, whose type it may not read", async () => {
    const user = await t.request('POST', '/api/v1/@cms/user', { body: { title: 'Ada', username: 'ada', password: 'correct horse battery', role: 'editor' } });
    assert.equal(user.status, 200, user.text);
    const article = await t.request('POST', '/api/v1/article', { body: { title: 'Authored', _author: [{ _id: user.body._id }] } });
    const asContributor = await t.request('GET', `/api/v1/article/${article.body.cmsDocId}?cmsMode=draft`, { key: 'contributor' });
    assert.equal(asContributor.status, 200);
    assert.deepEqual(asContributor.body.authorIds, [user.body._id]);
    assert.deepEqual(asContributor.body._author, []);
    const asAdmin = await t.request('GET', `/api/v1/article/${article.body.cmsDocId}?cmsMode=draft`);
    assert.deepEqual(asAdmin.body._author.map((doc: { title: string }) => doc.title), ['Ada']);
  });
});
