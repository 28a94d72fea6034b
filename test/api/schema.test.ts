import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/**
 * The fixture types of `testConfig` plus: a `quote` widget and a `gallery` widget whose own area
 * takes quotes (reachable only through a widget), `post` with a grouped area, an attachment, a
 * string with limits, a relationship with per-relation fields and a nested object, and `secret`
 * (viewRole editor, no public API) and `memo` (viewRole editor, public projection).
 */
function schemaConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  return {
    ...config,
    locales: { en: { label: 'English' }, es: { label: 'Español', fallback: 'en' }, 'es-mx': { label: 'Español (México)', fallback: 'es' } },
    widgets: {
      quote: { fields: { add: { text: { type: 'string', required: true }, _source: { type: 'relationship', withType: 'article' } } } },
      gallery: { fields: { add: { items: { type: 'area', options: { widgets: { quote: {} } } } } } },
      unused: { fields: { add: { x: { type: 'string' } } } },
    },
    modules: {
      ...modules,
      article: { ...(modules.article as object), options: { ...(modules.article as { options: object }).options, columns: ['tags', 'priority', { name: 'category', label: 'Section' }] } },
      post: {
        extend: '@cms/piece-type',
        options: { label: 'Post', pluralLabel: 'Posts', perPage: 20, sort: { title: 1 }, autopublish: true },
        fields: {
          add: {
            summary: { type: 'string', textarea: true, min: 2, max: 200, pattern: '^[A-Z]', help: 'One line', def: 'Ab' },
            body: {
              type: 'area',
              options: {
                min: 1,
                max: 5,
                widgets: { '@cms/rich-text': { toolbar: ['bold', 'link'], styles: [{ tag: 'p', label: 'Text' }] } },
                groups: { media: { label: 'Media', widgets: { '@cms/image': {}, gallery: {} } } },
              },
            },
            cover: { type: 'attachment', fileGroup: 'images', extensions: ['jpg', 'png'] },
            _articles: {
              type: 'relationship',
              min: 1,
              builders: { project: { title: 1 } },
              fields: { add: { note: { type: 'string' } } },
            },
            address: { type: 'object', fields: { add: { city: { type: 'string' }, zip: { type: 'integer', min: 1000 } } } },
          },
        },
      },
      secret: { extend: '@cms/piece-type', options: { viewRole: 'editor' }, fields: { add: { code: { type: 'string' } } } },
      memo: {
        extend: '@cms/piece-type',
        options: { viewRole: 'editor', publicApiProjection: { title: 1, topic: 1 }, sort: { hidden: 1, title: 1 } },
        fields: { add: { topic: { type: 'string' }, hidden: { type: 'string' } } },
      },
    },
  };
}

type Caller = keyof typeof keys | null;

const allTrue = { read: true, viewDrafts: true, create: true, edit: true, publish: true, delete: true };
const readOnly = { read: true, viewDrafts: false, create: false, edit: false, publish: false, delete: false };

function fieldNames(type: { fields: { name: string }[] }): string[] {
  return type.fields.map((field) => field.name);
}

function field(type: { fields: { name: string }[] }, name: string): any {
  return type.fields.find((entry) => entry.name === name);
}

describe('GET /api/v1/@cms/schema', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(schemaConfig());
  });
  after(() => t.close());

  async function schema(key: Caller) {
    const response = await t.request('GET', '/api/v1/@cms/schema', { key });
    assert.equal(response.status, 200, response.text);
    return response;
  }

  it('answers the locales with their labels, prefixes, the default and their fallback chains', async () => {
    const { body } = await schema(null);
    assert.deepEqual(body.locales, [
      { name: 'en', label: 'English', prefix: '', default: true, fallbacks: [] },
      { name: 'es', label: 'Español', prefix: '/es', default: false, fallbacks: ['en'] },
      { name: 'es-mx', label: 'Español (México)', prefix: '/es-mx', default: false, fallbacks: ['es', 'en'] },
    ]);
  });

  it('shows an admin every type with every field and every permission', async () => {
    const { body } = await schema('admin');
    assert.deepEqual(Object.keys(body.types).sort(), ['@cms/file', '@cms/file-tag', '@cms/image', '@cms/image-tag', '@cms/user', 'article', 'memo', 'note', 'post', 'secret']);
    for (const type of Object.values<any>(body.types)) assert.deepEqual(type.can, allTrue);
    assert.deepEqual(fieldNames(body.types['@cms/user']), ['title', 'slug', 'archived', 'disabled', 'username', 'email', 'password', 'role']);
    assert.deepEqual(fieldNames(body.types.memo), ['title', 'slug', 'visibility', 'archived', 'topic', 'hidden']);
    const post = body.types.post;
    assert.equal(post.label, 'Post');
    assert.equal(post.pluralLabel, 'Posts');
    assert.equal(post.perPage, 20);
    assert.deepEqual(post.sort, { title: 1 });
    assert.equal(post.localized, true);
    assert.equal(post.autopublish, true);
    assert.equal(post.pagePath, undefined);
    assert.deepEqual(body.types.article.publicProjection, { title: 1, slug: 1, category: 1, _url: 1, _author: 1 });
    assert.equal(body.types.article.pagePath, '/articles');
  });

  it('describes each field with its type, label, help, required, default and limits', async () => {
    const { body } = await schema('admin');
    assert.deepEqual(field(body.types.post, 'title'), { name: 'title', type: 'string', label: 'Title', help: '', required: true });
    assert.deepEqual(field(body.types.post, 'summary'), {
      name: 'summary',
      type: 'string',
      label: 'Summary',
      help: 'One line',
      required: false,
      def: 'Ab',
      textarea: true,
      min: 2,
      max: 200,
      pattern: '^[A-Z]',
    });
    assert.deepEqual(field(body.types.article, 'priority'), { name: 'priority', type: 'integer', label: 'Priority', help: '', required: false, min: 0, max: 100 });
    assert.deepEqual(field(body.types.article, 'color').choices, [
      { label: 'Red', value: 'red' },
      { label: 'Blue', value: 'blue' },
    ]);
    assert.deepEqual(field(body.types.article, 'tags').choices, [
      { label: 'News', value: 'news' },
      { label: 'Tech', value: 'tech' },
    ]);
    assert.deepEqual(field(body.types.post, 'visibility').def, 'public');
    assert.deepEqual(field(body.types.post, 'cover'), {
      name: 'cover',
      type: 'attachment',
      label: 'Cover',
      help: '',
      required: false,
      fileGroups: ['images'],
      extensions: ['jpg', 'png'],
    });
    assert.deepEqual(field(body.types['@cms/image'], 'attachment').fileGroups, ['images']);
  });

  it('names every relationship target, with its limits and per-relation fields, and never its builders', async () => {
    const { body } = await schema('admin');
    assert.deepEqual(field(body.types.article, '_author'), { name: '_author', type: 'relationship', label: 'Author', help: '', required: false, withType: '@cms/user' });
    assert.equal(field(body.types.article, '_related').max, 2);
    // withType left to the field name: `_articles` -> `article`.
    assert.deepEqual(field(body.types.post, '_articles'), {
      name: '_articles',
      type: 'relationship',
      label: 'Articles',
      help: '',
      required: false,
      min: 1,
      withType: 'article',
      fields: [{ name: 'note', type: 'string', label: 'Note', help: '', required: false }],
    });
  });

  it('names the list columns (the defaults when none are configured), each sortable or not by the list query\'s rule', async () => {
    const { body } = await schema('admin');
    assert.deepEqual(body.types.article.columns, [
      { name: 'title', label: 'Title', sortable: true },
      { name: 'tags', label: 'Tags', sortable: false },
      { name: 'priority', label: 'Priority', sortable: true },
      { name: 'category', label: 'Section', sortable: true },
    ]);
    assert.deepEqual(body.types.post.columns, [
      { name: 'title', label: 'Title', sortable: true },
      { name: 'updatedAt', label: 'Last change', sortable: true },
    ]);
    // A column the list says is sortable sorts; one it says is not is refused.
    const sorted = await t.request('GET', '/api/v1/article?sort[priority]=-1', { key: 'admin' });
    assert.equal(sorted.status, 200, sorted.text);
    const refused = await t.request('GET', '/api/v1/article?sort[tags]=1', { key: 'admin' });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.name, 'invalid');
  });

  it('shows a caller without API access only the columns of the public projection', async () => {
    const { body } = await schema(null);
    assert.deepEqual(body.types.article.columns, [
      { name: 'title', label: 'Title', sortable: true },
      { name: 'category', label: 'Section', sortable: true },
    ]);
  });

  it('describes the nested fields of arrays and objects', async () => {
    const { body } = await schema('admin');
    assert.deepEqual(field(body.types.article, 'links').fields, [
      { name: 'label', type: 'string', label: 'Label', help: '', required: true },
      { name: 'url', type: 'url', label: 'Url', help: '', required: false },
    ]);
    assert.deepEqual(field(body.types.post, 'address').fields, [
      { name: 'city', type: 'string', label: 'City', help: '', required: false },
      { name: 'zip', type: 'integer', label: 'Zip', help: '', required: false, min: 1000 },
    ]);
  });

  it('shows an area its widget types, groups, limits and the effective rich-text toolbar and styles', async () => {
    const { body } = await schema('admin');
    const options = field(body.types.post, 'body').options;
    assert.deepEqual(Object.keys(options.widgets), ['@cms/rich-text', '@cms/image', 'gallery']);
    assert.deepEqual(options.groups, { media: { label: 'Media', widgets: ['@cms/image', 'gallery'] } });
    assert.equal(options.min, 1);
    assert.equal(options.max, 5);
    assert.deepEqual(options.toolbar, ['bold', 'link']);
    assert.deepEqual(options.styles, [{ tag: 'p', label: 'Text' }]);
    // Left out of the configuration: the defaults the server sanitizes with.
    assert.deepEqual(options.insert, ['image', 'table', 'importTable', 'horizontalRule']);
    assert.deepEqual(options.imageStyles, []);
    assert.deepEqual(options.widgets['@cms/rich-text'].toolbar, ['bold', 'link']);
    const articleBody = field(body.types.article, 'body').options;
    assert.deepEqual(Object.keys(articleBody.widgets), ['@cms/rich-text']);
    assert.ok(articleBody.toolbar.includes('bold') && articleBody.toolbar.includes('orderedList'));
  });

  it('lists the widget types the described areas reach, with their labels and fields', async () => {
    const { body } = await schema('admin');
    // `quote` is reached only through the gallery's own area; `unused` is in no area.
    assert.deepEqual(Object.keys(body.widgets).sort(), ['@cms/image', '@cms/rich-text', 'gallery', 'quote']);
    assert.deepEqual(body.widgets['@cms/rich-text'], { label: 'Rich Text', fields: [] });
    assert.equal(body.widgets['@cms/image'].label, 'Image');
    assert.deepEqual(body.widgets['@cms/image'].fields[0], {
      name: '_image',
      type: 'relationship',
      label: 'Image',
      help: '',
      required: true,
      withType: '@cms/image',
      max: 1,
      // The crop fields every relationship to an image without fields of its own has (`relationshipFields`).
      fields: [
        ...['top', 'left', 'width', 'height'].map((name) => ({ name, type: 'integer', label: name[0]!.toUpperCase() + name.slice(1), help: '', required: false, min: 0 })),
        { name: 'x', type: 'integer', label: 'Focal point x', help: '', required: false, min: 0, max: 100 },
        { name: 'y', type: 'integer', label: 'Focal point y', help: '', required: false, min: 0, max: 100 },
      ],
    });
    assert.deepEqual(Object.keys(body.widgets.gallery.fields[0].options.widgets), ['quote']);
    assert.deepEqual(body.widgets.quote, {
      label: 'Quote',
      fields: [
        { name: 'text', type: 'string', label: 'Text', help: '', required: true },
        { name: '_source', type: 'relationship', label: 'Source', help: '', required: false, withType: 'article' },
      ],
    });
  });

  it('hides @cms/user from an editor, as GET does, and lets an editor publish the rest', async () => {
    const { body } = await schema('editor');
    assert.equal(body.types['@cms/user'], undefined);
    assert.equal((await t.request('GET', '/api/v1/@cms/user', { key: 'editor' })).status, 404);
    assert.deepEqual(body.types.article.can, allTrue);
    assert.deepEqual(body.types['@cms/image'].can, allTrue);
    assert.deepEqual(fieldNames(body.types.secret), ['title', 'slug', 'visibility', 'archived', 'code']);
  });

  it('lets a contributor edit drafts but not publish, nor write autopublished types', async () => {
    const { body } = await schema('contributor');
    assert.deepEqual(body.types.article.can, { read: true, viewDrafts: true, create: true, edit: true, publish: false, delete: true });
    // Every save of an autopublished type is a publication.
    assert.deepEqual(body.types.post.can, { read: true, viewDrafts: true, create: false, edit: false, publish: false, delete: false });
    assert.deepEqual(body.types['@cms/image'].can, { ...readOnly, viewDrafts: true });
    assert.equal(body.types.post.autopublish, true);
  });

  it('shows a caller below viewRole only the public projection of a type, or nothing without one', async () => {
    const { body } = await schema('contributor');
    assert.equal(body.types.secret, undefined);
    assert.equal((await t.request('GET', '/api/v1/secret', { key: 'contributor' })).status, 404);
    const memo = body.types.memo;
    assert.deepEqual(fieldNames(memo), ['title', 'topic']);
    assert.deepEqual(memo.can, readOnly);
    // Sorting by a hidden property would name it.
    assert.deepEqual(memo.sort, { title: 1 });
    assert.equal(memo.autopublish, undefined);
    assert.equal(memo.publicProjection, undefined);
  });

  for (const caller of [null, 'guest'] as const) {
    it(`shows ${caller ?? 'an anonymous caller'} only public types, their projected fields and nothing about drafts`, async () => {
      const { body, text } = await schema(caller);
      assert.deepEqual(Object.keys(body.types).sort(), ['@cms/file', '@cms/image', 'article', 'memo']);
      const article = body.types.article;
      assert.deepEqual(fieldNames(article), ['title', 'slug', 'category', '_author']);
      assert.deepEqual(article.can, readOnly);
      assert.equal(article.autopublish, undefined);
      assert.equal(article.publicProjection, undefined);
      assert.deepEqual(Object.keys(article).sort(), ['can', 'columns', 'fields', 'label', 'localized', 'pagePath', 'perPage', 'pluralLabel', 'sort']);
      assert.deepEqual(fieldNames(body.types['@cms/image']), ['title', 'slug', 'attachment', 'alt', 'credit', 'creditUrl']);
      // No projected field is an area, so no widget type is shown.
      assert.deepEqual(body.widgets, {});
      for (const hidden of ['priority', 'note', 'secret', 'hidden', 'links', 'gallery', 'quote', 'password']) {
        assert.ok(!text.includes(hidden), `the answer names "${hidden}"`);
      }
    });
  }

  it('never carries credentials or server paths', async () => {
    const { text } = await schema('admin');
    for (const key of Object.values(keys)) assert.ok(!text.includes(key));
    assert.ok(!text.includes(t.dataDir));
    assert.ok(!/apiKey|databaseUrl|dataDir/i.test(text));
  });

  it('is private to authenticated callers and revalidated by ETag', async () => {
    const admin = await schema('admin');
    assert.equal(admin.headers['cache-control'], 'private, no-cache');
    assert.equal(admin.headers.vary, 'Authorization');
    assert.match(String(admin.headers['content-type']), /^application\/json/);
    const etag = String(admin.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal((await schema('admin')).headers.etag, etag);
    const anonymous = await schema(null);
    assert.equal(anonymous.headers['cache-control'], 'no-cache');
    assert.notEqual(anonymous.headers.etag, etag);

    const fresh = await t.request('GET', '/api/v1/@cms/schema', { key: 'admin', headers: { 'if-none-match': `"other", W/${etag}` } });
    assert.equal(fresh.status, 304);
    assert.equal(fresh.text, '');
    assert.equal(fresh.headers.etag, etag);
    // The anonymous answer's tag does not validate the admin's.
    const stale = await t.request('GET', '/api/v1/@cms/schema', { key: 'admin', headers: { 'if-none-match': String(anonymous.headers.etag) } });
    assert.equal(stale.status, 200);
    assert.deepEqual(stale.body, admin.body);
  });

  it('answers HEAD with the headers and no body', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/api/v1/@cms/schema' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, (await schema(null)).headers.etag);
  });

  it('refuses wrong credentials in the one error shape', async () => {
    const wrongKey = await t.request('GET', '/api/v1/@cms/schema?apikey=not-a-key-0123456789', { key: null });
    assert.equal(wrongKey.status, 403);
    assert.equal(wrongKey.body.name, 'forbidden');
    assert.match(wrongKey.body.message, /^invalid api key: /);
    const wrongToken = await t.request('GET', '/api/v1/@cms/schema', { key: null, headers: { authorization: 'Bearer nope' } });
    assert.equal(wrongToken.status, 401);
    assert.equal(wrongToken.body.name, 'unauthorized');
    const write = await t.request('POST', '/api/v1/@cms/schema', { body: {} });
    assert.equal(write.status, 404);
    assert.equal(write.body.name, 'notfound');
  });
});
