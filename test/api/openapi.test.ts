import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadAppConfig } from '../../src/load-app-config.js';
import { demoConfig } from '../../src/config/demo-config.js';
import { openApiDocument, type OpenApiDocument } from '../../src/http/openapi/openapi-document.js';
import { pascalName } from '../../src/http/openapi/component-names.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { answerProblem } from '../helpers/openapi-recorder.js';

/** A configuration with every field type, nested arrays and objects, widgets, areas in widgets and relationships both ways. */
function edgeConfig(): Record<string, unknown> {
  const choices = [
    { label: 'One', value: 1 },
    { label: 'Two', value: 'two' },
    { label: 'Yes', value: true },
  ];
  return {
    baseUrl: 'http://cms.test',
    apiKeys: { 'edge-admin-key-0123456789': { role: 'admin' } },
    widgets: {
      callout: {
        fields: {
          add: {
            heading: { type: 'string', required: true },
            inner: { type: 'area', options: { widgets: { '@cms/rich-text': {}, callout: {} } } },
            _post: { type: 'relationship', withType: 'blog-post', max: 1 },
          },
        },
      },
    },
    modules: {
      'blog-post': {
        extend: '@cms/piece-type',
        options: { label: 'Blog Post', publicApiProjection: { title: 1, rating: 1, _tags: 1, _url: 1 }, pagePath: '/blog' },
        fields: {
          add: {
            subtitle: { type: 'string', textarea: true, min: 2, max: 80, pattern: '^[A-Z]' },
            rating: { type: 'integer', min: 0, max: 5, def: 3 },
            weight: { type: 'float', min: 0.5 },
            featured: { type: 'boolean', def: false },
            kind: { type: 'select', choices, required: true },
            flags: { type: 'checkboxes', choices },
            day: { type: 'date' },
            at: { type: 'time' },
            when: { type: 'dateAndTime' },
            contact: { type: 'email' },
            site: { type: 'url' },
            tint: { type: 'color' },
            secret: { type: 'password' },
            cover: { type: 'attachment', fileGroups: ['images'] },
            _tags: { type: 'relationship', withType: 'tag', min: 0, max: 5, fields: { add: { note: { type: 'string' } } } },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, '@cms/image': {}, callout: {} } } },
            sections: {
              type: 'array',
              min: 1,
              fields: {
                add: {
                  heading: { type: 'string' },
                  rows: { type: 'array', fields: { add: { cells: { type: 'checkboxes', choices }, pin: { type: 'password' } } } },
                  box: { type: 'object', fields: { add: { depth: { type: 'object', fields: { add: { level: { type: 'integer' } } } } } } },
                  content: { type: 'area', options: { widgets: { callout: {} } } },
                },
              },
            },
            settings: { type: 'object', fields: { add: { _owner: { type: 'relationship', withType: '@cms/user', max: 1 } } } },
          },
        },
      },
      tag: {
        extend: '@cms/piece-type',
        options: { label: 'Tag', publicApiProjection: { title: 1, _posts: 1 } },
        fields: { add: { _posts: { type: 'relationshipReverse', withType: 'blog-post', reverseOf: '_tags' } } },
      },
      'blog-post-public': { extend: '@cms/piece-type', options: { label: 'Other Blog Post' } },
    },
  };
}

async function documentOf(config: Record<string, unknown>): Promise<OpenApiDocument> {
  const loaded = await loadAppConfig({ config, env: { CMS_DATA_DIR: '/nonexistent-openapi-test' }, cwd: '/nonexistent-openapi-test' });
  return openApiDocument(loaded);
}

async function assertValidOpenApi(document: OpenApiDocument): Promise<void> {
  const result = await new Validator().validate(document as never);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(document.openapi, '3.1.0');
}

const schemaOf = (document: OpenApiDocument, name: string) => document.components.schemas[name] as Record<string, any>;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document for the test, the demo and an edge configuration', async () => {
    for (const config of [testConfig(), demoConfig, edgeConfig()]) await assertValidOpenApi(await documentOf(config));
  });

  it('names the components of every piece type stably, tagged with the type and shape', async () => {
    const document = await documentOf(edgeConfig());
    const expected: [string, string, string][] = [
      ['BlogPost', 'blog-post', 'read'],
      ['BlogPostPublic', 'blog-post', 'public'],
      ['BlogPostInput', 'blog-post', 'write'],
      ['BlogPostPatch', 'blog-post', 'patch'],
      ['CmsImage', '@cms/image', 'read'],
      ['CmsImagePublic', '@cms/image', 'public'],
      ['CmsUserInput', '@cms/user', 'write'],
      // `blog-post-public` would take `BlogPostPublic` from `blog-post`: it gets a number instead.
      ['BlogPostPublic2', 'blog-post-public', 'read'],
      ['BlogPostPublic2Input', 'blog-post-public', 'write'],
    ];
    for (const [name, type, shape] of expected) {
      assert.equal(schemaOf(document, name)?.['x-cms-piece-type'], type, name);
      assert.equal(schemaOf(document, name)?.['x-cms-shape'], shape, name);
    }
    // Without a public API there is no public shape.
    assert.equal(schemaOf(document, 'CmsUserPublic'), undefined);
    assert.equal(schemaOf(document, 'BlogPostPublic2Public'), undefined);
    assert.deepEqual(['article', 'blog-post', '@cms/image', 'rich-text9'].map(pascalName), ['Article', 'BlogPost', 'CmsImage', 'RichText9']);
  });

  it('describes each field by its type in each shape', async () => {
    const document = await documentOf(edgeConfig());
    const read = schemaOf(document, 'BlogPost').properties;
    assert.deepEqual(read.rating.type, ['integer', 'null']);
    assert.equal(read.rating.maximum, 5);
    assert.deepEqual(read.kind.enum, [1, 'two', true, null]);
    assert.deepEqual(read.flags.items.enum, [1, 'two', true]);
    assert.equal(read.when.format, 'date-time');
    assert.equal(read.secret, undefined, 'a password is never read');
    assert.deepEqual(read.tagsIds, { title: 'Tags', type: 'array', items: { type: 'string' } });
    assert.equal(read._tags.items.allOf[0].$ref, '#/components/schemas/Tag');
    assert.equal(read._tags.items.allOf[1].properties._fields.properties.note.type, 'string');
    assert.deepEqual(read.cover.anyOf, [{ $ref: '#/components/schemas/Attachment' }, { type: 'null' }]);
    assert.deepEqual(
      read.body.properties.items.items.oneOf.map((entry: { $ref: string }) => entry.$ref),
      ['CmsRichTextWidget', 'CmsImageWidget', 'CalloutWidget'].map((name) => `#/components/schemas/${name}`),
    );
    const rows = read.sections.items.properties.rows.items.properties;
    assert.equal(rows.pin, undefined);
    assert.equal(read.sections.items.properties.box.properties.depth.properties.level.type[0], 'integer');
    assert.equal(read.sections.items.properties.metaType.const, 'arrayItem');

    const input = schemaOf(document, 'BlogPostInput');
    assert.deepEqual(input.required, ['title', 'kind']);
    assert.equal(input.properties.secret.writeOnly, true);
    assert.ok(input.properties._tags && input.properties.tags, 'a relationship is written under both names');
    assert.equal(input.properties.tagsIds, undefined);
    assert.equal(input.properties.sections.items.properties.rows.items.properties.pin.writeOnly, true);

    const patch = schemaOf(document, 'BlogPostPatch').properties;
    for (const operator of ['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$pullAll', '$pullAllById', '$move', '_patches']) {
      assert.ok(patch[operator], operator);
    }
    assert.equal(schemaOf(document, 'BlogPostPatch').required, undefined);

    // The public shape shows only the projection (plus _id, type, metaType, cacheInvalidatedAt and
    // the locale fallback's marks; _url brings _parentUrl, _parentSlug and slug).
    const shown = Object.keys(schemaOf(document, 'BlogPostPublic').properties).sort();
    assert.deepEqual(shown, ['_fallbackFields', '_fallbackLocale', '_fields', '_id', '_parentSlug', '_parentUrl', '_tags', '_url', 'cacheInvalidatedAt', 'metaType', 'rating', 'slug', 'title', 'type']);
    assert.equal(schemaOf(document, 'BlogPostPublic').properties._tags.items.allOf[0].$ref, '#/components/schemas/TagPublic');
    assert.equal(schemaOf(document, 'Tag').properties._posts.items.$ref, '#/components/schemas/BlogPost');

    const callout = schemaOf(document, 'CalloutWidget');
    assert.equal(callout['x-cms-widget-type'], 'callout');
    assert.equal(callout.properties.type.const, 'callout');
    assert.equal(callout.properties.inner.properties.items.items.oneOf[1].$ref, '#/components/schemas/CalloutWidget');
  });

  it('lists every route of every piece type with its parameters, and the fixed routes', async () => {
    const document = await documentOf(testConfig());
    for (const type of ['article', 'note', '@cms/user', '@cms/image', '@cms/file']) {
      const base = `/api/v1/${type}`;
      assert.deepEqual(Object.keys(document.paths[base]!).sort(), ['get', 'post']);
      assert.deepEqual(Object.keys(document.paths[`${base}/{_id}`]!).sort(), ['delete', 'get', 'patch', 'put']);
      for (const action of ['publish', 'unpublish', 'localize', 'revert-draft-to-published', 'revert-published-to-previous']) {
        assert.ok(document.paths[`${base}/{_id}/${action}`]?.post, `${type} ${action}`);
      }
      assert.ok(document.paths[`${base}/{_id}/locales`]?.get);
    }
    for (const path of [
      '/api/v1/@cms/attachment/upload',
      '/api/v1/@cms/attachment/crop',
      '/api/v1/@cms/image/{_id}/src',
      '/api/v1/@cms/login/login',
      '/api/v1/@cms/login/logout',
      '/api/v1/@cms/login/whoami',
      '/api/v1/@cms/setup',
      '/api/v1/@cms/schema',
      '/api/v1/openapi.json',
      '/health',
    ]) {
      assert.ok(document.paths[path], path);
    }
    const list = document.paths['/api/v1/article']!.get as { parameters: { name?: string; $ref?: string }[]; security: object[]; responses: object };
    const names = list.parameters.map((parameter) => parameter.name ?? parameter.$ref!.split('/').pop());
    for (const name of ['cmsMode', 'cmsLocale', 'page', 'perPage', 'search', 'autocomplete', 'sort', 'project', '_ids[]', 'archived', 'count', 'choices', 'counts', 'renderAreas']) {
      assert.ok(names.includes(name), name);
    }
    // A filter per filterable field, relationships under both names and with `And`.
    for (const name of ['category', 'priority', 'tags', 'color', '_author', 'author', '_authorAnd', 'authorAnd', 'title', 'slug']) {
      assert.ok(names.includes(name), name);
    }
    assert.deepEqual(list.security[0], {}, 'anyone may list a type with a public API');
    assert.notDeepEqual((document.paths['/api/v1/note']!.get as { security: object[] }).security[0], {});
    assert.deepEqual(Object.keys(list.responses).sort(), ['200', '304', '400', '401', '403', '404', '500', '503']);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['ApiKey', 'ApiKeyQuery', 'BearerToken', 'CsrfToken', 'SessionCookie']);
    assert.deepEqual(schemaOf(document, 'Error').required, ['name', 'message', 'data']);
  });
});

describe('the answer check of the API tests', () => {
  it('refuses answers the document does not describe: a route, a status, a body shape', async () => {
    const config = await loadAppConfig({ config: testConfig(), env: { CMS_DATA_DIR: '/nonexistent-openapi-test' }, cwd: '/nonexistent-openapi-test' });
    const json = 'application/json; charset=utf-8';
    const article = JSON.stringify({ _id: 'a:en:published', type: 'article', metaType: 'doc', title: 'Hello', priority: 3, tags: ['news'] });
    const answer = { method: 'GET', route: '/api/v1/article/:_id', status: 200, contentType: json, body: article };
    assert.equal(answerProblem(config, answer), null);
    assert.match(answerProblem(config, { ...answer, body: article.replace('"priority":3', '"priority":"3"') })!, /priority must be integer/);
    assert.match(answerProblem(config, { ...answer, body: article.replace('["news"]', '["sports"]') })!, /must be equal to one of the allowed values/);
    assert.match(answerProblem(config, { ...answer, body: '{"title":"no id"}' })!, /must match a schema in anyOf/);
    assert.match(answerProblem(config, { ...answer, status: 409 })!, /answered 409, which the OpenAPI document does not list/);
    assert.match(answerProblem(config, { ...answer, route: '/api/v1/article/:_id/archive' })!, /is not in the OpenAPI document/);
    assert.match(answerProblem(config, { ...answer, method: 'DELETE', body: '{}' })!, /the body should be empty/);
    assert.match(answerProblem(config, { ...answer, status: 404, body: '{"error":"not found"}' })!, /must have required property 'name'/);
    assert.equal(answerProblem(config, { ...answer, status: 404, body: '{"name":"notfound","message":"Not found","data":{}}' }), null);
    assert.match(answerProblem(config, { ...answer, contentType: 'text/html' })!, /not JSON/);
  });
});

describe('GET /api/v1/openapi.json and /docs', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('answers the document built at start, with an ETag, as the caller\'s role may see it', async () => {
    const admin = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(admin.status, 200);
    assert.match(String(admin.headers['content-type']), /^application\/json/);
    await assertValidOpenApi(admin.body);
    assert.ok(admin.body.paths['/api/v1/note']);
    assert.ok(admin.body.components.schemas.Article.properties.priority);

    const again = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(again.text, admin.text);
    const revalidated = await t.request('GET', '/api/v1/openapi.json', { headers: { 'if-none-match': String(admin.headers.etag) } });
    assert.equal(revalidated.status, 304);

    // Anonymous callers learn what @cms/schema shows them: public types, projected fields.
    const anonymous = await t.request('GET', '/api/v1/openapi.json', { key: null });
    assert.equal(anonymous.status, 200);
    await assertValidOpenApi(anonymous.body);
    assert.notEqual(anonymous.headers.etag, admin.headers.etag);
    assert.equal(anonymous.body.paths['/api/v1/note'], undefined);
    assert.equal(anonymous.body.paths['/api/v1/@cms/user'], undefined);
    assert.equal(anonymous.body.components.schemas.Note, undefined);
    assert.deepEqual(Object.keys(anonymous.body.components.schemas.Article.properties).filter((key) => key === 'priority' || key === 'category'), ['category']);
    assert.ok(anonymous.body.paths['/api/v1/article']);

    // An editor may not read users (viewRole admin).
    const editor = await t.request('GET', '/api/v1/openapi.json', { key: 'editor' });
    assert.ok(editor.body.paths['/api/v1/note']);
    assert.equal(editor.body.paths['/api/v1/@cms/user'], undefined);
  });

  it('serves the interactive reference at /docs from this server alone', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    const references = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(references.length >= 4, page.body);
    for (const reference of references) {
      assert.doesNotMatch(reference, /^(https?:)?\/\//, `${reference} must come from this server`);
      const asset = await t.app.inject({ method: 'GET', url: new URL(reference, 'http://cms.test/docs').pathname });
      assert.equal(asset.statusCode, 200, reference);
      assert.equal(asset.headers['x-content-type-options'], 'nosniff');
      if (reference.endsWith('.js')) assert.match(String(asset.headers['content-type']), /javascript/);
      if (reference.endsWith('.css')) assert.match(String(asset.headers['content-type']), /text\/css/);
    }
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.match(initializer.body, /validatorUrl: null/, 'no validator badge from another host');

    // The UI reads the caller's document.
    const anonymous = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(anonymous.statusCode, 200);
    assert.equal(anonymous.body, (await t.request('GET', '/api/v1/openapi.json', { key: null })).text);
    assert.equal(t.app.hasDecorator('swagger'), false, 'the plugins stay in their own scope');
  });

  // Swagger UI fills object parameters without an example with `additionalProp1` keys; the
  // filters' first form is a string, which it leaves empty.
  it('gives the sort and project parameters of each list an example that the list accepts as Swagger UI sends it, signed in or anonymous', async () => {
    type Parameter = { name: string; example?: Record<string, string> };
    for (const key of ['admin', null] as const) {
      const document = (await t.request('GET', '/api/v1/openapi.json', { key })).body as OpenApiDocument;
      let lists = 0;
      for (const [path, item] of Object.entries(document.paths)) {
        const parameters = ((item as { get?: { parameters?: Parameter[] } }).get?.parameters ?? []).filter((parameter) => ['sort', 'project'].includes(parameter.name));
        if (!parameters.some((parameter) => parameter.name === 'sort')) continue;
        lists++;
        const query = new URLSearchParams();
        for (const parameter of parameters) {
          assert.ok(parameter.example && Object.keys(parameter.example).length > 0, `${path} ${parameter.name} has an example`);
          for (const [name, value] of Object.entries(parameter.example)) query.append(`${parameter.name}[${name}]`, value);
        }
        const res = await t.request('GET', `${path}?${query}`, { key });
        assert.equal(res.status, 200, `${key ?? 'anonymous'}: ${path}?${query}: ${res.text}`);
        const results = res.body.results as Record<string, unknown>[];
        for (const result of results) assert.deepEqual(Object.keys(result).filter((name) => !['_id', 'type', 'metaType', 'title'].includes(name)).filter((name) => !name.startsWith('_')), [], `${path} projects to the title`);
      }
      assert.ok(lists >= (key === null ? 1 : 3), `${key ?? 'anonymous'}: ${lists} list routes checked`);
    }
  });

  it('describes the routes the server has: each operation answers, not a 404 of the router', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json')).body as OpenApiDocument;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        assert.ok(t.app.hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), `${method} ${path}`);
      }
    }
  });
});
