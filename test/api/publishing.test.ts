import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, isoDate, type TestApp } from '../helpers/test-app.js';

describe('publishing: publish, unpublish, reverts, localize, locales, delete', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function draftOnly(title: string) {
    const res = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  it('publishes a draft by its draft _id and answers the newly published piece', async () => {
    const draft = await draftOnly('Publish Me');
    const res = await t.request('POST', `/api/v1/article/${draft._id}/publish`, { body: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, `${draft.cmsDocId}:en:published`);
    assert.equal(res.body.title, 'Publish Me');
    assert.match(res.body.lastPublishedAt, isoDate);
    assert.equal('modified' in res.body, false);
    const after = await t.request('GET', `/api/v1/article/${draft._id}`);
    assert.equal(after.body.modified, false);
    assert.equal(after.body.lastPublishedAt, res.body.lastPublishedAt);
    const anonymous = await t.request('GET', `/api/v1/article/${res.body._id}`, { key: null });
    assert.equal(anonymous.status, 200);
  });

  it('publishes by published _id and by bare cmsDocId, keeping the previous version for undo', async () => {
    const draft = await draftOnly('Version One');
    await t.request('POST', `/api/v1/article/${draft.cmsDocId}/publish`);
    await t.request('PATCH', `/api/v1/article/${draft._id}`, { body: { title: 'Version Two' } });
    const second = await t.request('POST', `/api/v1/article/${draft.cmsDocId}:en:published/publish`);
    assert.equal(second.status, 200);
    assert.equal(second.body.title, 'Version Two');
    const undone = await t.request('POST', `/api/v1/article/${draft.cmsDocId}/revert-published-to-previous`);
    assert.equal(undone.status, 200, undone.text);
    assert.equal(undone.body.title, 'Version One');
    assert.equal(undone.body._id, `${draft.cmsDocId}:en:published`);
    const draftAfter = await t.request('GET', `/api/v1/article/${draft._id}`);
    assert.equal(draftAfter.body.title, 'Version Two');
    assert.equal(draftAfter.body.modified, true);
    const again = await t.request('POST', `/api/v1/article/${draft.cmsDocId}/revert-published-to-previous`);
    assert.equal(again.status, 400);
    assert.equal(again.body.name, 'invalid');
  });

  it('publishes the draft of the locale cmsLocale names', async () => {
    const spanish = await t.request('POST', '/api/v1/article?cmsMode=draft&cmsLocale=es', { body: { title: 'Borrador' } });
    assert.equal(spanish.body._id, `${spanish.body.cmsDocId}:es:draft`);
    const wrongLocale = await t.request('POST', `/api/v1/article/${spanish.body.cmsDocId}/publish`);
    assert.equal(wrongLocale.status, 404, 'the default locale has no draft of it');
    const res = await t.request('POST', `/api/v1/article/${spanish.body.cmsDocId}/publish?cmsLocale=es`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, `${spanish.body.cmsDocId}:es:published`);
    assert.equal(res.body._url, 'http://cms.test/es/articles/borrador');
  });

  it('answers 404 when there is no draft to publish', async () => {
    const res = await t.request('POST', '/api/v1/article/doesnotexist/publish');
    assert.equal(res.status, 404);
    assert.equal(res.body.name, 'notfound');
  });

  it('reverts the draft to the published version, or answers false when there is nothing to revert', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Stable' } });
    const draftId = `${created.body.cmsDocId}:en:draft`;
    const nothing = await t.request('POST', `/api/v1/article/${draftId}/revert-draft-to-published`);
    assert.equal(nothing.status, 200);
    assert.equal(nothing.body, false);
    await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: 'Unstable' } });
    const reverted = await t.request('POST', `/api/v1/article/${draftId}/revert-draft-to-published`);
    assert.equal(reverted.status, 200);
    assert.equal(reverted.body.title, 'Stable');
    assert.equal(reverted.body.modified, false);
  });

  it('unpublishes: the published version goes, the draft stays modified', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Unpublish Me' } });
    const res = await t.request('POST', `/api/v1/article/${created.body._id}/unpublish`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, `${created.body.cmsDocId}:en:draft`);
    assert.equal(res.body.modified, true);
    assert.equal(res.body.lastPublishedAt, null);
    assert.equal((await t.request('GET', `/api/v1/article/${created.body._id}`)).status, 404);
    assert.equal((await t.request('POST', `/api/v1/article/${created.body._id}/unpublish`)).status, 404);
  });

  it('localizes a draft into another locale, 409 the second time unless update is set', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Localize Me', category: 'intl' } });
    const { cmsDocId } = created.body;
    const res = await t.request('POST', `/api/v1/article/${cmsDocId}:en:draft/localize`, { body: { toLocale: 'es' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, `${cmsDocId}:es:draft`);
    assert.equal(res.body.category, 'intl');
    assert.match(res.body.localizedAt, isoDate);
    assert.equal(res.body.modified, true);
    const twice = await t.request('POST', `/api/v1/article/${cmsDocId}/localize`, { body: { toLocale: 'es' } });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.name, 'conflict');
    const updated = await t.request('POST', `/api/v1/article/${cmsDocId}/localize`, { body: { toLocale: 'es', update: true } });
    assert.equal(updated.status, 200);
    for (const toLocale of [undefined, 'en', 'xx', 5]) {
      const bad = await t.request('POST', `/api/v1/article/${cmsDocId}/localize`, { body: { toLocale } });
      assert.equal(bad.status, 400, `toLocale ${String(toLocale)}`);
    }
    const republished = await t.request('POST', `/api/v1/article/${cmsDocId}/publish`);
    assert.equal(republished.status, 200, republished.text);
    const locales = await t.request('GET', `/api/v1/article/${cmsDocId}/locales`);
    assert.equal(locales.status, 200);
    assert.deepEqual(
      locales.body.results.map((r: { _id: string; cmsLocale: string }) => r.cmsLocale).sort(),
      ['en:draft', 'en:previous', 'en:published', 'es:draft'],
    );
    const publicLocales = await t.request('GET', `/api/v1/article/${cmsDocId}/locales`, { key: null });
    assert.deepEqual(publicLocales.body.results, [{ _id: `${cmsDocId}:en:published`, cmsLocale: 'en:published' }]);
  });

  it('deletes: the published version takes its previous copy and leaves the draft unpublished', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Delete Me' } });
    const { cmsDocId } = created.body;
    const res = await t.request('DELETE', `/api/v1/article/${cmsDocId}:en:published`);
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal((await t.request('GET', `/api/v1/article/${cmsDocId}:en:published`)).status, 404);
    const draft = await t.request('GET', `/api/v1/article/${cmsDocId}:en:draft`);
    assert.equal(draft.status, 200);
    assert.equal(draft.body.modified, true);
    const draftGone = await t.request('DELETE', `/api/v1/article/${cmsDocId}:en:draft`);
    assert.equal(draftGone.status, 200);
    assert.equal((await t.request('GET', `/api/v1/article/${cmsDocId}:en:draft`)).status, 404);
    const missing = await t.request('DELETE', '/api/v1/article/doesnotexist');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { name: 'notfound', message: 'notfound', data: {} });
  });
});
