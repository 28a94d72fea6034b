import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/** Refusals say what to do, with the statuses and `name` codes of the original. */
describe('errors that tell the caller what to do', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig();
    const modules = config.modules as Record<string, { fields: { add: Record<string, unknown> } }>;
    // A select with more choices than a refusal lists.
    modules.note!.fields.add.size = {
      type: 'select',
      choices: Array.from({ length: 30 }, (_, i) => ({ label: `Size ${i}`, value: `size-${i}` })),
    };
    t = await startTestApp(config);
  });
  after(() => t.close());

  it('answers an unknown piece type with a 404 naming the types an anonymous caller may read', async () => {
    const res = await t.request('GET', '/api/v1/artcle', { key: null });
    assert.equal(res.status, 404);
    assert.equal(res.body.name, 'notfound');
    assert.deepEqual(res.body.data.knownTypes, ['@cms/image', '@cms/file', 'article']);
    assert.equal(res.body.message, 'There is no piece type "artcle"; the known types are: @cms/image, @cms/file, article');
    assert.doesNotMatch(res.text, /note|@cms\/user/, 'types without public API stay unnamed to anonymous callers');
  });

  it('names every type an admin may use, also for writes and deeper paths', async () => {
    for (const [method, url] of [['GET', '/api/v1/nope'], ['POST', '/api/v1/nope'], ['GET', '/api/v1/nope/abc/publish'], ['GET', '/api/v1/@cms/nope']] as const) {
      const res = await t.request(method, url, method === 'POST' ? { body: {} } : {});
      assert.equal(res.status, 404, url);
      const known = res.body.data.knownTypes as string[];
      assert.ok(known.includes('note') && known.includes('@cms/user') && known.includes('article'), `${url}: ${res.text}`);
    }
  });

  it('keeps a plain 404 for unknown paths of known modules and outside /api/v1/<type>', async () => {
    for (const url of ['/api/v1/article/nope/nope', '/api/v1/@cms/login/nope', '/nope', '/api/v2/article']) {
      const res = await t.request('GET', url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { name: 'notfound', message: 'notfound', data: {} }, url);
    }
  });

  it('clips a long unknown name so the known types still show', async () => {
    const res = await t.request('GET', `/api/v1/${'x'.repeat(500)}`, { key: null });
    assert.equal(res.status, 404);
    assert.match(res.body.message, /^There is no piece type "x{60}…"; the known types are: @cms\/image, @cms\/file, article$/);
  });

  it('tells an anonymous writer that an API key or a sign-in is needed and how to send it', async () => {
    const res = await t.request('POST', '/api/v1/article', { key: null, body: { title: 'x' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.name, 'forbidden');
    assert.match(res.body.message, /^Writing article needs an API key or a sign-in: send Authorization: ApiKey <key> \(or \?apikey=<key>\)/);
    assert.match(res.body.message, /Authorization: Bearer <token> from POST \/api\/v1\/@cms\/login\/login/);
    assert.equal(res.body.data.requiredRole, 'editor');
    assert.ok((res.body.data.authenticate as string[]).includes("the admin's session cookie"));
  });

  it('tells an anonymous reader of drafts the same, with the 403 of the original', async () => {
    const res = await t.request('GET', '/api/v1/article?cmsMode=draft', { key: null });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /^Reading drafts of article needs an API key or a sign-in/);
    assert.equal(res.body.data.requiredRole, 'contributor');
  });

  it('tells a caller whose role is too low which role is needed', async () => {
    const guest = await t.request('POST', '/api/v1/article', { key: 'guest', body: { title: 'x' } });
    assert.equal(guest.status, 403);
    assert.equal(guest.body.message, 'Writing article needs the editor role or higher; this API key has guest');
    assert.deepEqual(guest.body.data, { requiredRole: 'editor', role: 'guest' });
    const draft = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'draft' } });
    assert.equal(draft.status, 200, draft.text);
    const publish = await t.request('POST', `/api/v1/article/${draft.body._id}/publish`, { key: 'contributor' });
    assert.equal(publish.status, 403);
    assert.equal(publish.body.message, 'Publishing article needs the editor role or higher; this API key has contributor');
  });

  it('says which credential was wrong and how to send a valid one', async () => {
    const key = await t.request('GET', '/api/v1/article', { key: null, headers: { authorization: 'ApiKey wrong-key-0123456789' } });
    assert.equal(key.status, 403);
    assert.equal(key.body.name, 'forbidden');
    assert.match(key.body.message, /^invalid api key: no API key matches the one sent \(Authorization: ApiKey <key> or \?apikey=<key>\)/);
    const bearer = await t.request('GET', '/api/v1/article', { key: null, headers: { authorization: 'Bearer not-a-token' } });
    assert.equal(bearer.status, 401);
    assert.equal(bearer.body.name, 'unauthorized');
    assert.match(bearer.body.message, /^bearer token invalid: .*POST \/api\/v1\/@cms\/login\/login and send Authorization: Bearer <token>$/);
  });

  it('answers a body that is not JSON with a 415 naming application/json', async () => {
    const res = await t.request('POST', '/api/v1/article', { payload: 'title=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(res.status, 415);
    assert.equal(res.body.name, 'unsupported');
    assert.match(res.body.message, /^Send the body as JSON with the header Content-Type: application\/json; file uploads/);
    assert.deepEqual(res.body.data, { accepted: ['application/json'] });
  });

  it('answers an upload that is not multipart with a 415 naming multipart/form-data', async () => {
    const res = await t.request('POST', '/api/v1/@cms/attachment/upload', { body: { file: 'x' } });
    assert.equal(res.status, 415);
    assert.match(res.body.message, /multipart\/form-data/);
    assert.deepEqual(res.body.data, { accepted: ['multipart/form-data'] });
  });

  it('lists the allowed values of a select or checkboxes field refused a value', async () => {
    const select = await t.request('POST', '/api/v1/article', { body: { title: 'x', color: 'green' } });
    assert.equal(select.status, 400);
    const [colorError] = select.body.data.errors;
    assert.equal(colorError.path, 'color');
    assert.equal(colorError.message, 'must be one of the choices: "red", "blue"');
    assert.deepEqual(colorError.data, { choices: ['red', 'blue'] });
    const boxes = await t.request('POST', '/api/v1/article', { body: { title: 'x', tags: ['news', 'sport'] } });
    assert.equal(boxes.status, 400);
    const [tagsError] = boxes.body.data.errors;
    assert.equal(tagsError.path, 'tags');
    assert.equal(tagsError.message, '"sport" is not one of the choices: "news", "tech"');
    assert.deepEqual(tagsError.data, { choices: ['news', 'tech'] });
  });

  it('clips a long list of choices in the refusal', async () => {
    const res = await t.request('POST', '/api/v1/note', { body: { title: 'x', size: 'huge' } });
    assert.equal(res.status, 400);
    const [sizeError] = res.body.data.errors;
    assert.equal(sizeError.data.choices.length, 20);
    assert.equal(sizeError.data.moreChoices, 10);
    assert.match(sizeError.message, /^must be one of the choices: "size-0", "size-1", /);
  });
});
