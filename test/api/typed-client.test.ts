import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createCmsClient, CmsError, type CmsClient } from '../../src/client/index.js';
import { startTestApp, testConfig, cheapPasswordHasher, keys, isoDate, docIdPattern, type TestApp } from '../helpers/test-app.js';
import { makeImage, md5 } from '../helpers/media.js';

/** Loose shapes for the test configuration: this file checks behaviour over HTTP; typed-content-compile.test.ts checks the types. */
type Doc = { [key: string]: any };
type Loose = { read: Doc; public: Doc; write: Doc; patch: Doc };
type TestTypes = { article: Loose; note: { read: Doc; public: never; write: Doc; patch: Doc }; '@cms/image': Loose };

/** Expects the promise to be refused with a CmsError and answers it. */
async function refusal(promise: Promise<unknown>): Promise<CmsError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CmsError, `a CmsError, not ${String(error)}`);
    return error;
  }
  assert.fail('the request succeeded');
}

describe('typed client: list, get, insert, patch, publish and upload against a real server', () => {
  let t: TestApp;
  let baseUrl: string;
  let admin: CmsClient<TestTypes, 'read'>;
  before(async () => {
    t = await startTestApp(testConfig(), {}, { passwordHasher: cheapPasswordHasher() });
    baseUrl = `http://127.0.0.1:${await t.listen()}/`;
    admin = createCmsClient<TestTypes>({ baseUrl, apiKey: keys.admin });
  });
  after(() => t.close());

  it('inserts a published article and gets it back by cmsDocId and by _id', async () => {
    const inserted = await admin.insert('article', { title: 'Client Hello', category: 'news', priority: 7, tags: ['tech'] });
    assert.match(inserted.cmsDocId, docIdPattern);
    assert.equal(inserted._id, `${inserted.cmsDocId}:en:published`);
    assert.equal(inserted.slug, 'client-hello');
    assert.equal(inserted.priority, 7);
    assert.deepEqual(inserted.tags, ['tech']);
    assert.match(inserted.createdAt, isoDate);
    const byDocId = await admin.get('article', inserted.cmsDocId);
    assert.equal(byDocId._id, inserted._id);
    assert.equal(byDocId.category, 'news');
    const draft = await admin.get('article', inserted.cmsDocId, { mode: 'draft' });
    assert.equal(draft._id, `${inserted.cmsDocId}:en:draft`);
    assert.equal(draft.modified, false);
  });

  it('inserts a draft in a locale, patches it with an operator, publishes it', async () => {
    const draft = await admin.insert('article', { title: 'Borrador', priority: 1 }, { mode: 'draft', locale: 'es' });
    assert.equal(draft._id, `${draft.cmsDocId}:es:draft`);
    const patched = await admin.patch('article', draft._id, { category: 'ciencia', $inc: { priority: 2 } });
    assert.equal(patched.category, 'ciencia');
    assert.equal(patched.priority, 3);
    assert.equal(patched.modified, true);
    const published = await admin.publish('article', draft.cmsDocId, { locale: 'es' });
    assert.equal(published._id, `${draft.cmsDocId}:es:published`);
    assert.equal(published.category, 'ciencia');
    assert.match(published.lastPublishedAt, isoDate);
    const missing = await refusal(admin.get('article', draft.cmsDocId));
    assert.equal(missing.status, 404, 'no English version');
    assert.equal(missing.name, 'notfound');
  });

  it('schedules a draft to be published and cancels it', async () => {
    const draft = await admin.insert('article', { title: 'Later on' }, { mode: 'draft' });
    const scheduled = await admin.schedule('article', draft._id, { publishAt: new Date('2031-01-01T09:00:00Z'), unpublishAt: '2031-02-01T09:00:00+01:00' });
    assert.equal(scheduled._id, draft._id);
    assert.deepEqual(scheduled.scheduledPublish, { at: '2031-01-01T09:00:00.000Z', by: { _id: null, title: 'System Task', username: null }, status: 'pending' });
    assert.equal(scheduled.scheduledUnpublish?.at, '2031-02-01T08:00:00.000Z');
    const cancelled = await admin.schedule('article', draft._id, { publishAt: null, unpublishAt: null });
    assert.equal(cancelled.scheduledPublish, undefined);
    const refused = await refusal(admin.schedule('article', draft._id, { publishAt: 'soon' }));
    assert.equal(refused.status, 400);
  });

  it('writes only on the version it read (ifUnchanged sends If-Match; a stale one is a CmsError 412) and chains writes', async () => {
    const draft = await admin.insert('article', { title: 'Shared' }, { mode: 'draft' });
    const read = await admin.get('article', draft._id);
    assert.match(admin.etagOf(read)!, /^"d/);
    const first = await admin.patch('article', draft._id, { category: 'first' }, { ifUnchanged: read });
    const stale = await refusal(admin.patch('article', draft._id, { title: 'Lost' }, { ifUnchanged: read }));
    assert.equal(stale.status, 412);
    assert.equal(stale.name, 'changed');
    assert.equal(stale.data.updatedAt, first.updatedAt);
    const second = await admin.patch('article', draft._id, { title: 'Kept' }, { ifUnchanged: first });
    assert.equal(second.category, 'first');
    const published = await admin.publish('article', draft.cmsDocId, { ifUnchanged: admin.etagOf(second)! });
    assert.equal(published.title, 'Kept');
    assert.throws(() => admin.patch('article', draft._id, { title: 'x' }, { ifUnchanged: {} }), TypeError);
  });

  it('lists with filters, sort, paging, projection, search, choices and count', async () => {
    for (const [title, priority, color] of [['Ranked One', 10, 'red'], ['Ranked Two', 20, 'blue'], ['Ranked Three', 30, 'red']] as const) {
      await admin.insert('article', { title, priority, color, category: 'ranked' });
    }
    const page = await admin.list('article', { filters: { category: 'ranked', priority: { min: 15 } }, sort: { priority: -1 }, perPage: 1 });
    assert.equal(page.pages, 2);
    assert.equal(page.currentPage, 1);
    assert.deepEqual(page.results.map((doc) => doc.title), ['Ranked Three']);
    const second = await admin.list('article', { filters: { category: 'ranked', priority: { min: 15 } }, sort: { priority: -1 }, perPage: 1, page: 2 });
    assert.deepEqual(second.results.map((doc) => doc.title), ['Ranked Two']);
    const anyOf = await admin.list('article', { filters: { color: ['blue'], category: 'ranked' } });
    assert.deepEqual(anyOf.results.map((doc) => doc.title), ['Ranked Two']);
    const projected = await admin.list('article', { filters: { category: 'ranked' }, sort: { title: 1 }, project: ['title'] });
    assert.deepEqual(projected.results.map((doc) => doc.title), ['Ranked One', 'Ranked Three', 'Ranked Two']);
    assert.deepEqual(Object.keys(projected.results[0]!).sort(), ['_id', 'metaType', 'title', 'type']);
    const found = await admin.list('article', { search: 'three' });
    assert.deepEqual(found.results.map((doc) => doc.title), ['Ranked Three']);
    const withChoices = await admin.list('article', { filters: { category: 'ranked' }, choices: ['color'] });
    assert.deepEqual(withChoices.choices?.color?.map((choice) => choice.value).sort(), ['blue', 'red']);
    assert.equal(await admin.count('article', { filters: { category: 'ranked', color: 'red' } }), 2);
  });

  it('reads as an anonymous caller: the public projection of published documents only', async () => {
    await admin.insert('article', { title: 'Public Side', category: 'shown', priority: 99 });
    const anonymous = createCmsClient<TestTypes>({ baseUrl });
    const page = await anonymous.list('article', { filters: { category: 'shown' } });
    assert.equal(page.results.length, 1);
    assert.equal(page.results[0]!.title, 'Public Side');
    assert.equal(page.results[0]!.category, 'shown');
    assert.equal('priority' in page.results[0]!, false, 'the projection hides priority');
    const drafts = await refusal(anonymous.list('article', { mode: 'draft' }));
    assert.equal(drafts.status, 403);
    assert.equal(drafts.name, 'forbidden');
  });

  it('uploads a file, attaches it to an image piece, and autocrops the image', async () => {
    const png = await makeImage('png', 40, 30);
    const attachment = await admin.upload(new Blob([new Uint8Array(png)], { type: 'image/png' }), 'Red Square.png');
    assert.equal(attachment.extension, 'png');
    assert.equal(attachment.group, 'images');
    assert.equal(attachment.name, 'red-square');
    assert.equal(attachment.length, png.length);
    assert.equal(attachment.md5, md5(png));
    assert.deepEqual(attachment.docIds, []);
    const image = await admin.insert('@cms/image', { title: 'Red square', alt: 'A red square', attachment: { _id: attachment._id } });
    assert.equal(image.attachment._id, attachment._id);
    const listed = await createCmsClient<TestTypes>({ baseUrl }).get('@cms/image', image.cmsDocId);
    assert.equal(listed.attachment.width, 40);
    const file = new File([new Uint8Array(png)], 'named-by-file.png', { type: 'image/png' });
    assert.equal((await admin.upload(file)).name, 'named-by-file');
    // 40×30 at 1:1: the full height and the centred 30 columns.
    const { relationship } = await admin.autocrop([{ _id: image._id }], [1, 1]);
    assert.deepEqual(relationship[0]!._fields, { top: 0, left: 5, width: 30, height: 30 });
    assert.deepEqual(relationship[0]!._crop, { top: 0, left: 5, width: 30, height: 30 });
    const laundered = await admin.autocrop([{ _id: image._id, _fields: { top: 0, left: 0, width: 50, height: 50 } }]);
    assert.deepEqual(laundered.relationship[0]!._fields, {}, 'a box past the image is dropped');
  });

  it('throws CmsError with status, name, message and data from the error shape', async () => {
    const invalid = await refusal(admin.insert('article', { priority: 'many' }));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.name, 'invalid');
    assert.equal(invalid.message, 'invalid');
    const errors = invalid.data.errors as { name: string; path: string }[];
    assert.deepEqual(errors.map((error) => [error.path, error.name]).sort(), [['priority', 'invalid'], ['title', 'required']]);
    const contributor = createCmsClient<TestTypes>({ baseUrl, apiKey: keys.contributor });
    const forbidden = await refusal(contributor.insert('article', { title: 'Not allowed to publish' }));
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.name, 'forbidden');
    const unknownKey = await refusal(createCmsClient<TestTypes>({ baseUrl, apiKey: 'not-a-key-of-this-server' }).get('article', 'x'));
    assert.equal(unknownKey.status, 403);
    const note = await admin.insert('note', { title: 'Internal' });
    // The types refuse a type without public API to a public client; the server refuses it too.
    const noPublicApi = await refusal(createCmsClient<TestTypes>({ baseUrl, audience: 'public' }).get('note' as never, note.cmsDocId));
    assert.equal(noPublicApi.status, 404);
    assert.equal(noPublicApi.name, 'notfound');
  });

  it('sends a bearer token, and uses the fetch it is given', async () => {
    await admin.insert('@cms/user' as never, { title: 'Client User', username: 'client-user', password: 'correct horse battery', role: 'editor' } as never);
    const login = await fetch(`${baseUrl}api/v1/@cms/login/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'client-user', password: 'correct horse battery' }),
    });
    const { token } = (await login.json()) as { token: string };
    const seen: string[] = [];
    const bearer = createCmsClient<TestTypes>({
      baseUrl,
      bearer: token,
      fetch: (input, init) => {
        seen.push(`${init?.method} ${String(input)} ${new Headers(init?.headers).get('authorization')}`);
        return fetch(input, init);
      },
    });
    const draft = await bearer.insert('article', { title: 'By Bearer' }, { mode: 'draft' });
    assert.equal(draft.updatedBy.username, 'client-user');
    assert.deepEqual(seen, [`POST ${baseUrl}api/v1/article?cmsMode=draft Bearer ${token}`]);
  });
});
