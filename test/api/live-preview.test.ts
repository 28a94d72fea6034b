import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isoDate, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { loadAppConfig } from '../../src/load-app-config.js';

/**
 * Live preview (`options.preview`): `POST :_id/preview-url` answers the front end's URL of the
 * draft with a fresh preview link, and a browser opening a link that no longer works gets a page.
 */

/** The test types, `article` previewed by a template and `recipe` (no pages) by a function. */
function previewConfig(): Record<string, unknown> {
  const config = testConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
  config.modules.article!.options.preview = { url: 'https://site.example/articles/{slug}?locale={locale}&mode={mode}&doc={cmsDocId}&id={_id}' };
  config.modules.recipe = {
    extend: '@cms/piece-type',
    options: {
      label: 'Recipe',
      // A shared read by anyone needs a public API, as every anonymous read.
      publicApiProjection: { title: 1, slug: 1 },
      preview: { url: (doc: Record<string, unknown>, { locale }: { locale: string }) => `http://localhost:4321/${locale}/recipes/${String(doc.slug)}?v=${String(doc.title).length}` },
    },
    fields: { add: {} },
  } as never;
  return config;
}

describe('live preview: POST :_id/preview-url', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(previewConfig(), { CMS_LIMIT_SHARE_LINK_MAX_LIFETIME: '7200' });
  });
  after(() => t.close());

  async function draftOf(type: string, title: string): Promise<string> {
    const created = await t.request('POST', `/api/v1/${type}`, { body: { title } });
    assert.equal(created.status, 200, created.text);
    const draftId = `${created.body.cmsDocId}:en:draft`;
    const patched = await t.request('PATCH', `/api/v1/${type}/${draftId}`, { body: { title: `${title} draft` } });
    assert.equal(patched.status, 200, patched.text);
    return draftId;
  }
  const previewUrl = (type: string, id: string, options: { key?: 'admin' | 'editor' | 'contributor' | 'guest' | null; body?: unknown } = {}) =>
    t.request('POST', `/api/v1/${type}/${id}/preview-url`, options);

  it('fills the template\'s placeholders (URL-encoded) and carries a fresh link that reads the draft, anonymously', async () => {
    const draftId = await draftOf('article', 'Live one');
    const started = Date.now();
    const res = await previewUrl('article', draftId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    assert.deepEqual(Object.keys(res.body).sort(), ['expiresAt', 'origin', 'url']);
    assert.equal(res.body.origin, 'https://site.example');
    assert.match(res.body.expiresAt, isoDate);
    const lifetime = Date.parse(res.body.expiresAt) - started;
    assert.ok(lifetime > 3_590_000 && lifetime <= 3_601_000, `default lifetime 1 h: ${lifetime}`);
    const url = new URL(res.body.url);
    const [docId] = draftId.split(':');
    assert.equal(url.pathname, '/articles/live-one');
    assert.equal(url.searchParams.get('locale'), 'en');
    assert.equal(url.searchParams.get('mode'), 'draft');
    assert.equal(url.searchParams.get('doc'), docId);
    assert.equal(url.searchParams.get('id'), draftId, 'the _id, its colons encoded');
    assert.match(res.body.url, /id=[^&]*%3Aen%3Adraft/);
    assert.equal(url.searchParams.get('cmsShareId'), draftId);
    const key = url.searchParams.get('cmsShareKey')!;
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    const read = await t.request('GET', `/api/v1/article/${draftId}?cmsShareId=${encodeURIComponent(draftId)}&cmsShareKey=${key}`, { key: null });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'Live one draft');
    // The link is listed (and revocable) like any other.
    const links = await t.request('GET', `/api/v1/article/${draftId}/share`);
    assert.equal(links.body.results.length, 1);
    assert.equal(links.body.results[0].expiresAt, res.body.expiresAt);
    // Each call makes another link.
    const again = await previewUrl('article', draftId);
    assert.notEqual(new URL(again.body.url).searchParams.get('cmsShareKey'), key);
  });

  it('computes the URL with a function of the configuration, for a type without pagePath', async () => {
    const draftId = await draftOf('recipe', 'Soup');
    const res = await previewUrl('recipe', draftId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.origin, 'http://localhost:4321');
    const url = new URL(res.body.url);
    assert.equal(url.pathname, '/en/recipes/soup');
    assert.equal(url.searchParams.get('v'), String('Soup draft'.length), 'the function sees the draft');
    const key = url.searchParams.get('cmsShareKey')!;
    const read = await t.request('GET', `/api/v1/recipe/${draftId}?cmsShareId=${encodeURIComponent(draftId)}&cmsShareKey=${key}`, { key: null });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'Soup draft');
    // Sharing works for a type with a preview and no pagePath.
    const shared = await t.request('POST', `/api/v1/recipe/${draftId}/share`, { body: { share: true, expiresIn: 60 } });
    assert.equal(shared.status, 200, shared.text);
    assert.equal(typeof shared.body.cmsShareKey, 'string');
  });

  it('takes expiresIn; the link stops reading the draft once expired', async () => {
    const draftId = await draftOf('article', 'Short lived');
    const res = await previewUrl('article', draftId, { body: { expiresIn: 1 } });
    assert.equal(res.status, 200, res.text);
    const key = new URL(res.body.url).searchParams.get('cmsShareKey')!;
    const read = () => t.request('GET', `/api/v1/article/${draftId}?cmsShareId=${encodeURIComponent(draftId)}&cmsShareKey=${key}`, { key: null });
    assert.equal((await read()).status, 200);
    await sleep(1100);
    assert.equal((await read()).status, 404);
  });

  it('refuses a bad body with a 400 in the one error shape, and stores no link', async () => {
    const draftId = await draftOf('article', 'Refused');
    for (const body of [{ expiresIn: 0 }, { expiresIn: 7201 }, { expiresIn: '60' }, { expiresIn: 1.5 }, { other: 1 }, [1]]) {
      const res = await previewUrl('article', draftId, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.equal(typeof res.body.message, 'string');
    }
    assert.deepEqual((await t.request('GET', `/api/v1/article/${draftId}/share`)).body, { results: [] });
  });

  it('is for those who may edit the draft: a contributor and an editor may, a guest and an anonymous caller may not', async () => {
    const draftId = await draftOf('article', 'Roles');
    assert.equal((await previewUrl('article', draftId, { key: 'contributor' })).status, 200);
    assert.equal((await previewUrl('article', draftId, { key: 'editor' })).status, 200);
    assert.equal((await previewUrl('article', draftId, { key: 'guest' })).status, 403);
    const anonymous = await previewUrl('article', draftId, { key: null });
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal(anonymous.body.name, 'forbidden');
    // The refusals made no link.
    assert.equal((await t.request('GET', `/api/v1/article/${draftId}/share`)).body.results.length, 2);
  });

  it('is a 404 for an unknown or archived document, a published or bare id, and a type without preview', async () => {
    const draftId = await draftOf('article', 'Found');
    const [docId] = draftId.split(':');
    for (const id of ['nosuchdocument000000000:en:draft', `${docId}:en:published`, docId!, `${docId}:fr:draft`]) {
      const res = await previewUrl('article', id!);
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.equal(res.body.name, 'notfound');
    }
    assert.equal((await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { archived: true } })).status, 200);
    assert.equal((await previewUrl('article', draftId)).status, 404);
    const note = await t.request('POST', '/api/v1/note', { body: { title: 'No preview' } });
    const res = await previewUrl('note', `${note.body.cmsDocId}:en:draft`);
    assert.equal(res.status, 404);
    assert.match(res.body.message, /no live preview/);
  });

  it('the schema says which types have a preview, never how', async () => {
    const schema = await t.request('GET', '/api/v1/@cms/schema');
    assert.equal(schema.status, 200, schema.text);
    assert.equal(schema.body.types.article.preview, true);
    assert.equal(schema.body.types.recipe.preview, true);
    assert.equal('preview' in schema.body.types.note, false);
    assert.doesNotMatch(schema.text, /site\.example|localhost:4321/);
  });
});

describe('live preview: a link that no longer works, opened in a browser', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(previewConfig());
  });
  after(() => t.close());

  const navigation = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

  it('answers an HTML page (404) to a navigation, the JSON error to API clients, and the draft while the link works', async () => {
    const created = await t.request('POST', '/api/v1/article', { body: { title: 'Expiring page' } });
    const draftId = `${created.body.cmsDocId}:en:draft`;
    const made = await t.request('POST', `/api/v1/article/${draftId}/preview-url`, { body: { expiresIn: 1 } });
    const key = new URL(made.body.url).searchParams.get('cmsShareKey')!;
    const path = `/api/v1/article/${draftId}?cmsShareId=${encodeURIComponent(draftId)}&cmsShareKey=${key}`;
    const open = await t.request('GET', path, { key: null, headers: navigation });
    assert.equal(open.status, 200);
    assert.equal(open.body.title, 'Expiring page');
    await sleep(1100);
    const page = await t.request('GET', path, { key: null, headers: navigation });
    assert.equal(page.status, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'private, no-store');
    assert.match(page.text, /This preview link has expired or was revoked/);
    // API clients: the JSON error exactly as before, whatever else they accept.
    for (const headers of [{} as Record<string, string>, { accept: 'application/json' }, { accept: 'text/html, application/json' }, { accept: '*/*' }]) {
      const json = await t.request('GET', path, { key: null, headers });
      assert.equal(json.status, 404);
      assert.match(String(json.headers['content-type']), /^application\/json/);
      assert.deepEqual(json.body, { name: 'notfound', message: 'notfound', data: {} });
    }
    // A wrong key is the same page; a 404 of an ordinary read stays JSON.
    assert.match((await t.request('GET', `/api/v1/article/${draftId}?cmsShareId=${encodeURIComponent(draftId)}&cmsShareKey=wrong`, { key: null, headers: navigation })).text, /has expired or was revoked/);
    const plain = await t.request('GET', '/api/v1/article/nosuchdocument000000000:en:published', { key: null, headers: navigation });
    assert.equal(plain.status, 404);
    assert.equal(plain.body.name, 'notfound');
  });
});

describe('live preview: the helper served as an ES module', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(previewConfig());
  });
  after(() => t.close());

  it('GET /api/v1/@cms/live-preview.js answers the compiled helper, as JavaScript any origin may import', async () => {
    const res = await t.request('GET', '/api/v1/@cms/live-preview.js', { key: null, headers: { origin: 'https://site.example' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.text, /export function subscribeToLivePreview\(/);
    assert.doesNotMatch(res.text, /sourceMappingURL|^import /m);
  });
});

describe('live preview: options.preview checked at start', () => {
  const load = (preview: unknown) => {
    const config = testConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
    config.modules.article!.options.preview = preview;
    return loadAppConfig({ config, env: { CMS_DATA_DIR: '/nonexistent-live-preview' }, cwd: '/nonexistent-live-preview' });
  };

  it('refuses a template that is no absolute http(s) URL, or holds an unknown placeholder or one in its origin, naming the key', async () => {
    const refusals: [unknown, RegExp][] = [
      [{ url: '/articles/{slug}' }, /modules\.article\.options\.preview\.url: must be an absolute http\(s\) URL/],
      [{ url: 'ftp://site.example/{slug}' }, /modules\.article\.options\.preview\.url: must be an absolute http\(s\) URL/],
      [{ url: 'https://site.example/{title}' }, /modules\.article\.options\.preview\.url: unknown placeholder \{title\}/],
      [{ url: 'https://{slug}.site.example/' }, /modules\.article\.options\.preview\.url: placeholders may not stand in the scheme, host or port/],
      [{ url: 42 }, /modules\.article\.options\.preview\.url: must be a URL template string or a function/],
      [{ href: 'https://site.example/' }, /modules\.article\.options\.preview/],
      ['https://site.example/', /modules\.article\.options\.preview: must be an object \{ url \}/],
    ];
    for (const [preview, message] of refusals) {
      await assert.rejects(load(preview), (error: Error) => {
        assert.match(error.message, message, JSON.stringify(preview));
        return true;
      });
    }
  });

  it('takes a template with every placeholder, and a function', async () => {
    await load({ url: 'http://localhost:4321/{locale}/{slug}?id={_id}&doc={cmsDocId}&mode={mode}' });
    await load({ url: () => 'https://site.example/' });
  });
});
