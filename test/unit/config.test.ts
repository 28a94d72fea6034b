import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAppConfig } from '../../src/load-app-config.js';
import { parseApiKeys } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors/app-error.js';

async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-config-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const article = (fields: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
  extend: '@cms/piece-type',
  options: { label: 'Article', ...options },
  fields: { add: { category: { type: 'string' }, ...fields } },
});

async function rejectsAt(config: unknown, path: string, env: Record<string, string> = {}): Promise<ConfigError> {
  let caught: unknown;
  try {
    await loadAppConfig({ env, cwd: tmpdir(), config });
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError at ${path}, got ${String(caught)}`);
  assert.equal(caught.path, path, caught.message);
  assert.ok(caught.message.startsWith(`${path}: `), caught.message);
  return caught;
}

test('the bundled demo configuration loads with the defaults of the environment', async () => {
  await withTempDir(async (dir) => {
    const config = await loadAppConfig({ env: {}, cwd: dir });
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicDemoKeys, true);
    assert.equal(config.dataDir, join(dir, 'data'));
    assert.equal(config.databaseUrl, `sqlite:${join(dir, 'data', 'cms.sqlite')}`);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bodyLimit, 16 * 1024 * 1024);
    assert.equal(config.uploadLimit, 50 * 1024 * 1024);
    assert.equal(config.baseUrl, null, 'no baseUrl: links follow the listening address');
    assert.match(config.configSource, /^the bundled demo/);
    assert.equal(config.defaultLocale, 'en');
    assert.deepEqual([...config.locales], [
      ['en', { label: 'English', prefix: '', fallbacks: [] }],
      ['es', { label: 'Español', prefix: '/es', fallbacks: ['en'] }],
      ['es-mx', { label: 'Español (México)', prefix: '/es-mx', fallbacks: ['es', 'en'] }],
    ]);
    assert.deepEqual(config.apiKeys.get('dev-admin-key-change-me'), { role: 'admin' });
    assert.deepEqual([...config.pieceTypes.keys()], ['@cms/user', '@cms/image', '@cms/file', '@cms/image-tag', '@cms/file-tag', 'article', 'event', 'note']);
    assert.deepEqual([...config.widgetTypes.keys()], ['@cms/rich-text', '@cms/image']);
  });
});

test('a configured piece type gets the base fields, defaults and humanized labels', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir() });
  const articleType = config.pieceTypes.get('article')!;
  assert.deepEqual(articleType.fields.map((field) => field.name), [
    'title', 'slug', 'visibility', 'archived', 'category', 'priority', 'tags', '_author', 'body',
  ]);
  assert.equal(articleType.options.pluralLabel, 'Articles');
  assert.equal(articleType.options.perPage, 10);
  assert.equal(articleType.options.pagePath, '/articles');
  assert.equal(articleType.options.localized, true);
  assert.equal(articleType.options.editRole, 'contributor');
  assert.deepEqual(articleType.options.sort, { updatedAt: -1 });
  const title = articleType.fieldsByName.get('title')!;
  assert.equal(title.type, 'string');
  assert.equal(title.required, true);
  assert.equal(articleType.fieldsByName.get('visibility')!.def, 'public');
  assert.equal(articleType.fieldsByName.get('_author')!.label, 'Author');
  assert.deepEqual(articleType.fieldsByName.get('_author')!.options, { withType: '@cms/user' });
  const event = config.pieceTypes.get('event')!;
  assert.equal(event.fieldsByName.get('startDate')!.label, 'Start Date');
  assert.equal(event.fieldsByName.get('capacity')!.options.min, 0);
  assert.equal(config.pieceTypes.get('note')!.options.publicApiProjection, null);
});

test('the result is frozen, maps included', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir() });
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.pieceTypes.get('article')!.fields[0]));
  assert.throws(() => (config.pieceTypes as Map<string, never>).delete('article'), TypeError);
  assert.throws(() => (config.apiKeys as Map<string, { role: 'admin' }>).set('x', { role: 'admin' }), TypeError);
});

test('the built-in piece types exist with their own fields and options', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: {} });
  const user = config.pieceTypes.get('@cms/user')!;
  assert.deepEqual(user.fields.map((field) => field.name), [
    'title', 'slug', 'archived', 'disabled', 'username', 'email', 'password', 'role',
  ]);
  assert.equal(user.fieldsByName.get('title')!.label, 'Display Name');
  assert.equal(user.fieldsByName.get('role')!.def, 'guest');
  assert.equal(user.options.localized, false);
  assert.equal(user.options.slugPrefix, 'user-');
  assert.deepEqual([user.options.viewRole, user.options.editRole, user.options.publishRole], ['admin', 'admin', 'admin']);
  const image = config.pieceTypes.get('@cms/image')!;
  assert.equal(image.fieldsByName.has('visibility'), false);
  assert.deepEqual(image.fieldsByName.get('attachment')!.options, { fileGroups: ['images'] });
  assert.equal(image.fieldsByName.get('attachment')!.required, true);
  assert.deepEqual(image.options.sort, { createdAt: -1 });
  assert.equal(image.options.autopublish, true);
  assert.equal(image.options.publicApiProjection?._url, 1);
  const file = config.pieceTypes.get('@cms/file')!;
  assert.deepEqual(file.fields.map((field) => field.name), [
    'title', 'slug', 'archived', 'attachment', 'description', 'credit', 'creditUrl', '_tags',
  ]);
  assert.deepEqual(file.options.sort, { updatedAt: -1 });
  assert.equal(file.options.editRole, 'editor');
  assert.equal(file.fieldsByName.get('_tags')!.options.withType, '@cms/file-tag');
  assert.equal(image.fieldsByName.get('_tags')!.options.withType, '@cms/image-tag');
  for (const name of ['@cms/image-tag', '@cms/file-tag']) {
    const tag = config.pieceTypes.get(name)!;
    assert.deepEqual(tag.fields.map((field) => field.name), ['title', 'slug', 'archived'], name);
    assert.deepEqual([tag.options.editRole, tag.options.autopublish], ['editor', true], name);
  }
  assert.deepEqual([...config.locales], [['en', { label: 'English', prefix: '', fallbacks: [] }]]);
});

test('a module named @cms/image adds fields and options to the built-in type', async () => {
  const config = await loadAppConfig({
    env: {},
    cwd: tmpdir(),
    config: { modules: { '@cms/image': { options: { perPage: 50 }, fields: { add: { caption: { type: 'string' } } } } } },
  });
  const image = config.pieceTypes.get('@cms/image')!;
  assert.equal(image.fields.at(-1)!.name, 'caption');
  assert.equal(image.options.perPage, 50);
  assert.equal(image.options.slugPrefix, 'image-');
});

test('a relationship may name a piece type declared later', async () => {
  const config = await loadAppConfig({
    env: {},
    cwd: tmpdir(),
    config: {
      modules: {
        article: article({ _topics: { type: 'relationship', withType: 'topic' } }),
        topic: { extend: '@cms/piece-type' },
      },
    },
  });
  assert.equal(config.pieceTypes.get('topic')!.options.label, 'topic');
});

test('configuration errors name the offending key path', async () => {
  await rejectsAt({ colour: 'blue' }, 'colour');
  await rejectsAt({ modules: { article: article({}, { perPag: 5 }) } }, 'modules.article.options.perPag');
  await rejectsAt({ modules: { article: article({}, { perPage: 0 }) } }, 'modules.article.options.perPage');
  await rejectsAt({ modules: { article: article({}, { pagePath: '/articles/' }) } }, 'modules.article.options.pagePath');
  await rejectsAt({ modules: { article: article({ size: { type: 'huge' } }) } }, 'modules.article.fields.add.size.type');
  await rejectsAt({ modules: { article: article({ size: { type: 'string', colour: 'red' } }) } }, 'modules.article.fields.add.size.colour');
  await rejectsAt(
    { modules: { article: article({ _author: { type: 'relationship', withType: 'person' } }) } },
    'modules.article.fields.add._author.withType',
  );
  await rejectsAt({ locales: { en: {}, fr: {} }, defaultLocale: 'de' }, 'defaultLocale');
  const badRole = await rejectsAt({ apiKeys: { 'a-long-enough-key': { role: 'owner' } } }, 'apiKeys');
  assert.equal(badRole.message, 'apiKeys: entry 1: role: must be one of guest, contributor, editor, admin');
  await rejectsAt({ modules: { article: article({}, { editRole: 'boss' }) } }, 'modules.article.options.editRole');
  await rejectsAt(
    { modules: { article: article({ body: { type: 'area', options: { widgets: { gallery: {} } } } }) } },
    'modules.article.fields.add.body.options.widgets.gallery',
  );
});

test('module and field rules are enforced', async () => {
  await rejectsAt({ modules: { article: { options: {} } } }, 'modules.article.extend');
  await rejectsAt({ modules: { '@cms/page': { extend: '@cms/piece-type' } } }, 'modules.@cms/page');
  await rejectsAt({ modules: { Article: { extend: '@cms/piece-type' } } }, 'modules.Article');
  await rejectsAt({ modules: { article: article({ cmsMode: { type: 'string' } }) } }, 'modules.article.fields.add.cmsMode');
  await rejectsAt({ modules: { article: article({ 'bad-name': { type: 'string' } }) } }, 'modules.article.fields.add.bad-name');
  await rejectsAt({ modules: { article: article({ title: { type: 'integer' } }) } }, 'modules.article.fields.add.title.type');
  await rejectsAt(
    { modules: { article: { ...article(), fields: { add: {}, remove: ['title'] } } } },
    'modules.article.fields.remove.0',
  );
  await rejectsAt(
    { modules: { article: article({ _author: { type: 'relationship', withType: '@cms/user' }, author: { type: 'string' } }) } },
    'modules.article.fields.add.author',
  );
  await rejectsAt(
    { modules: { article: article({ items: { type: 'array', fields: { add: { size: { type: 'huge' } } } } }) } },
    'modules.article.fields.add.items.fields.add.size.type',
  );
  await rejectsAt({ widgets: { gallery: { fields: { add: { photo: { type: 'nope' } } } } } }, 'widgets.gallery.fields.add.photo.type');
  // Its fields are answered with every related document: a password there would answer its hash.
  const relationshipWith = (add: Record<string, unknown>) =>
    article({ _author: { type: 'relationship', withType: '@cms/user', fields: { add } } });
  await rejectsAt({ modules: { article: relationshipWith({ pin: { type: 'password' } }) } }, 'modules.article.fields.add._author.fields.add.pin');
  await rejectsAt(
    { modules: { article: relationshipWith({ keys: { type: 'array', fields: { add: { pin: { type: 'password' } } } } }) } },
    'modules.article.fields.add._author.fields.add.keys.fields.add.pin',
  );
});

test('a module may remove an optional field and configure widget types', async () => {
  const config = await loadAppConfig({
    env: {},
    cwd: tmpdir(),
    config: {
      widgets: { quote: { fields: { add: { text: { type: 'string' } } } } },
      modules: {
        '@cms/file': { fields: { remove: ['credit'] } },
        article: article({ body: { type: 'area', options: { widgets: { quote: {}, '@cms/rich-text': {} } } } }),
      },
    },
  });
  assert.equal(config.pieceTypes.get('@cms/file')!.fieldsByName.has('credit'), false);
  assert.deepEqual(config.widgetTypes.get('quote')!.fields.map((field) => field.name), ['text']);
});

test('environment variables are validated and override the file', async () => {
  await rejectsAt({}, 'PORT', { PORT: 'abc' });
  await rejectsAt({}, 'CMS_LOG_LEVEL', { CMS_LOG_LEVEL: 'loud' });
  await rejectsAt({}, 'CMS_BODY_LIMIT', { CMS_BODY_LIMIT: '1.5' });
  await rejectsAt({}, 'CMS_UPLOAD_LIMIT', { CMS_UPLOAD_LIMIT: '0' });
  await rejectsAt({ uploadLimit: -1 }, 'uploadLimit');
  const badUrl = await rejectsAt({}, 'CMS_DATABASE_URL', { CMS_DATABASE_URL: 'postgres://user:secret@[broken/cms' });
  assert.doesNotMatch(badUrl.message, /secret/);
  await rejectsAt({}, 'CMS_DATABASE_POOL_SIZE', { CMS_DATABASE_POOL_SIZE: '1' });
  await rejectsAt({}, 'CMS_DATABASE_POOL_SIZE', { CMS_DATABASE_POOL_SIZE: 'ten' });
  await rejectsAt({}, 'CMS_API_KEYS', { CMS_API_KEYS: 'a-long-enough-key:owner' });
  await rejectsAt({}, 'CMS_BASE_URL', { CMS_BASE_URL: 'not a url' });
  const config = await loadAppConfig({
    cwd: '/srv/cms',
    config: { baseUrl: 'http://localhost:3000', apiKeys: { 'file-key-123': { role: 'admin' } } },
    env: {
      PORT: '8080',
      HOST: '127.0.0.1',
      CMS_DATA_DIR: 'var',
      CMS_DATABASE_URL: 'sqlite:db/main.sqlite',
      CMS_LOG_LEVEL: 'warn',
      CMS_BASE_URL: 'https://example.com/',
      CMS_API_KEYS: 'first-key-0123456789:editor, second:key-0123456789:admin',
      CMS_BODY_LIMIT: '1024',
      CMS_UPLOAD_LIMIT: '2048',
    },
  });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dataDir, '/srv/cms/var');
  assert.equal(config.databaseUrl, 'sqlite:/srv/cms/db/main.sqlite');
  assert.equal(config.logLevel, 'warn');
  assert.equal(config.baseUrl, 'https://example.com');
  assert.equal(config.bodyLimit, 1024);
  assert.equal(config.uploadLimit, 2048);
  assert.deepEqual([...config.apiKeys], [['first-key-0123456789', { role: 'editor' }], ['second:key-0123456789', { role: 'admin' }]]);
});

test('a PostgreSQL database URL is taken as written, with its pool size', async () => {
  for (const url of ['postgres://cms:secret@db.example:5432/cms', 'postgresql://localhost/cms?sslmode=require']) {
    const config = await loadAppConfig({ env: { CMS_DATABASE_URL: url }, cwd: tmpdir(), config: {} });
    assert.equal(config.databaseUrl, url);
    assert.equal(config.databasePoolSize, undefined);
  }
  const config = await loadAppConfig({
    env: { CMS_DATABASE_URL: 'postgres://localhost/cms', CMS_DATABASE_POOL_SIZE: '25' },
    cwd: tmpdir(),
    config: {},
  });
  assert.equal(config.databasePoolSize, 25);
});

test('CMS_DATABASE_READ_URL names PostgreSQL replicas of a PostgreSQL store, comma-separated', async () => {
  const readUrlsOf = async (env: Record<string, string>) => (await loadAppConfig({ env, cwd: tmpdir(), config: {} })).databaseReadUrls;
  assert.deepEqual(await readUrlsOf({}), []);
  assert.deepEqual(await readUrlsOf({ CMS_DATABASE_URL: 'postgres://primary/cms', CMS_DATABASE_READ_URL: '' }), []);
  assert.deepEqual(
    await readUrlsOf({ CMS_DATABASE_URL: 'postgres://primary/cms', CMS_DATABASE_READ_URL: 'postgres://r1/cms, postgresql://u:p@r2:5433/cms,' }),
    ['postgres://r1/cms', 'postgresql://u:p@r2:5433/cms'],
  );
  await rejectsAt({}, 'CMS_DATABASE_READ_URL', { CMS_DATABASE_READ_URL: 'postgres://r1/cms' });
  await rejectsAt({}, 'CMS_DATABASE_READ_URL', { CMS_DATABASE_URL: 'sqlite:cms.sqlite', CMS_DATABASE_READ_URL: 'postgres://r1/cms' });
  const bad = await rejectsAt({}, 'CMS_DATABASE_READ_URL', { CMS_DATABASE_URL: 'postgres://primary/cms', CMS_DATABASE_READ_URL: 'postgres://r1/cms,postgres://u:secret@[broken/cms' });
  assert.match(bad.message, /URL 2 /);
  assert.doesNotMatch(bad.message, /secret/);
  await rejectsAt({}, 'CMS_DATABASE_READ_URL', { CMS_DATABASE_URL: 'postgres://primary/cms', CMS_DATABASE_READ_URL: 'postgres://pooler/cms?pgbouncer=true' });
});

test('CMS_WORKERS is 1 by default, a count from 1 to 256, or auto (one per core)', async () => {
  const workersOf = async (value?: string) =>
    (await loadAppConfig({ env: value === undefined ? {} : { CMS_WORKERS: value }, cwd: tmpdir(), config: {} })).workers;
  assert.equal(await workersOf(), 1);
  assert.equal(await workersOf(''), 1);
  assert.equal(await workersOf('2'), 2);
  assert.equal(await workersOf('auto'), Math.min(availableParallelism(), 256));
  for (const bad of ['0', '257', 'two', '1.5', '-1', 'AUTO']) {
    const error = await rejectsAt({}, 'CMS_WORKERS', { CMS_WORKERS: bad });
    assert.match(error.message, /must be "auto" or an integer from 1 to 256/);
  }
});

test('CMS_API_KEYS is parsed as key:role pairs', () => {
  assert.equal(parseApiKeys(undefined), undefined);
  assert.deepEqual([...parseApiKeys('')!], []);
  assert.deepEqual([...parseApiKeys('abcdefgh12345678:guest,ijklmnop34567890:contributor,')!], [
    ['abcdefgh12345678', { role: 'guest' }],
    ['ijklmnop34567890', { role: 'contributor' }],
  ]);
  assert.throws(() => parseApiKeys('abcdefgh12345678'), (error: unknown) => error instanceof ConfigError && error.path === 'CMS_API_KEYS');
  assert.throws(() => parseApiKeys('short:admin'), /CMS_API_KEYS: entry 1/);
  assert.throws(() => parseApiKeys('abcdefgh12345678:admin,abcdefgh12345678:guest'), /entry 2 repeats/);
});

test('configuration files named by CMS_CONFIG or found in the working directory load', async () => {
  await withTempDir(async (dir) => {
    const modules = { note: { extend: '@cms/piece-type', fields: { add: { text: { type: 'string' } } } } };
    await writeFile(join(dir, 'site.json'), JSON.stringify({ baseUrl: 'http://json.test', modules }));
    await writeFile(join(dir, 'site.mjs'), `export default ${JSON.stringify({ baseUrl: 'http://mjs.test', modules })};`);
    await writeFile(join(dir, 'cms.config.mjs'), `export default { baseUrl: 'http://default.test' };`);
    await writeFile(join(dir, 'broken.json'), '{ "baseUrl": ');
    const fromJson = await loadAppConfig({ env: { CMS_CONFIG: 'site.json' }, cwd: dir });
    assert.equal(fromJson.baseUrl, 'http://json.test');
    assert.equal(fromJson.configSource, `the CMS_CONFIG file ${join(dir, 'site.json')}`);
    assert.ok(fromJson.pieceTypes.has('note'));
    const fromModule = await loadAppConfig({ env: { CMS_CONFIG: join(dir, 'site.mjs') }, cwd: dir });
    assert.equal(fromModule.baseUrl, 'http://mjs.test');
    assert.ok(fromModule.pieceTypes.get('note')!.fieldsByName.has('text'));
    const fromDefault = await loadAppConfig({ env: {}, cwd: dir });
    assert.equal(fromDefault.baseUrl, 'http://default.test');
    assert.equal(fromDefault.configSource, join(dir, 'cms.config.mjs'));
    await assert.rejects(loadAppConfig({ env: { CMS_CONFIG: 'missing.json' }, cwd: dir }), /CMS_CONFIG: no such file/);
    await assert.rejects(loadAppConfig({ env: { CMS_CONFIG: 'broken.json' }, cwd: dir }), /not valid JSON/);
    await assert.rejects(loadAppConfig({ env: { CMS_CONFIG: 'site.yaml' }, cwd: dir }), /CMS_CONFIG: must name/);
  });
});

test('cms.config.example.json loads cleanly', async () => {
  const example = fileURLToPath(new URL('../../../cms.config.example.json', import.meta.url));
  const config = await loadAppConfig({ env: { CMS_CONFIG: example }, cwd: tmpdir() });
  assert.deepEqual([...config.pieceTypes.keys()].slice(5), ['article', 'note']);
  assert.equal(config.locales.get('es')!.prefix, '/es');
});

test('limits: the environment over the file over the default, each checked against its bounds', async () => {
  const defaults = await loadAppConfig({ env: {}, cwd: tmpdir(), config: {} });
  assert.equal(defaults.limits.jsonDepth, 64);
  const fromFile = await loadAppConfig({ env: {}, cwd: tmpdir(), config: { limits: { jsonDepth: 10 } } });
  assert.equal(fromFile.limits.jsonDepth, 10);
  const fromEnv = await loadAppConfig({ env: { CMS_LIMIT_JSON_DEPTH: '12' }, cwd: tmpdir(), config: { limits: { jsonDepth: 10 } } });
  assert.equal(fromEnv.limits.jsonDepth, 12);
  await assert.rejects(loadAppConfig({ env: {}, cwd: tmpdir(), config: { limits: { jsonDepth: 0 } } }), (error: unknown) => {
    return error instanceof ConfigError && error.path === 'limits.jsonDepth';
  });
  await assert.rejects(loadAppConfig({ env: {}, cwd: tmpdir(), config: { limits: { nope: 1 } } }), (error: unknown) => {
    return error instanceof ConfigError && error.path === 'limits.nope';
  });
  await assert.rejects(loadAppConfig({ env: { CMS_LIMIT_JSON_DEPTH: '5x' }, cwd: tmpdir(), config: {} }), (error: unknown) => {
    return error instanceof ConfigError && error.path === 'CMS_LIMIT_JSON_DEPTH';
  });
});

test('the bundled demo with its public keys listens on 127.0.0.1 unless HOST says otherwise', async () => {
  await withTempDir(async (dir) => {
    const demo = await loadAppConfig({ env: {}, cwd: dir });
    assert.deepEqual([demo.host, demo.publicDemoKeys], ['127.0.0.1', true]);
    const hostSet = await loadAppConfig({ env: { HOST: '0.0.0.0' }, cwd: dir });
    assert.deepEqual([hostSet.host, hostSet.publicDemoKeys], ['0.0.0.0', true]);
    const ownKeys = await loadAppConfig({ env: { CMS_API_KEYS: 'my-own-secret-key-0123:admin' }, cwd: dir });
    assert.deepEqual([ownKeys.host, ownKeys.publicDemoKeys], ['0.0.0.0', false]);
    await writeFile(join(dir, 'site.json'), JSON.stringify({ apiKeys: { 'site-key-0123456789': { role: 'admin' } } }));
    const ownFile = await loadAppConfig({ env: { CMS_CONFIG: 'site.json' }, cwd: dir });
    assert.deepEqual([ownFile.host, ownFile.publicDemoKeys], ['0.0.0.0', false]);
    const given = await loadAppConfig({ env: {}, cwd: dir, config: {} });
    assert.deepEqual([given.host, given.publicDemoKeys], ['0.0.0.0', false]);
  });
});

test('a configured API key shorter than 16 characters stops the start without printing the key', async () => {
  const short = 'fifteen-chars-x';
  assert.equal(short.length, 15);
  const fromFile = await rejectsAt({ apiKeys: { 'long-enough-key-0123': { role: 'admin' }, [short]: { role: 'editor' } } }, 'apiKeys');
  assert.match(fromFile.message, /entry 2 \(role editor\).* 15 characters.*at least 16/);
  assert.ok(!fromFile.message.includes(short));
  const fromEnv = await rejectsAt({}, 'CMS_API_KEYS', { CMS_API_KEYS: `long-enough-key-0123:admin,${short}:guest` });
  assert.match(fromEnv.message, /entry 2 \(role guest\).* 15 characters.*at least 16/);
  assert.ok(!fromEnv.message.includes(short));
  const sixteen = await loadAppConfig({ env: {}, cwd: tmpdir(), config: { apiKeys: { [`${short}y`]: { role: 'admin' } } } });
  assert.deepEqual(sixteen.apiKeys.get(`${short}y`), { role: 'admin' });
});

test('CMS_TRUST_PROXY and trustProxy: true, false, or addresses and networks', async () => {
  const load = (env: Record<string, string>, config: Record<string, unknown> = {}) => loadAppConfig({ env, cwd: tmpdir(), config });
  assert.equal((await load({})).trustProxy, false);
  assert.equal((await load({ CMS_TRUST_PROXY: 'true' })).trustProxy, true);
  assert.deepEqual((await load({ CMS_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' })).trustProxy, ['10.0.0.0/8', '127.0.0.1']);
  assert.deepEqual((await load({}, { trustProxy: '192.168.1.0/24' })).trustProxy, ['192.168.1.0/24']);
  assert.deepEqual((await load({ CMS_TRUST_PROXY: 'false' }, { trustProxy: true })).trustProxy, false);
  await assert.rejects(load({ CMS_TRUST_PROXY: '2' }), (error: unknown) => error instanceof ConfigError && error.path === 'CMS_TRUST_PROXY');
  await assert.rejects(load({}, { trustProxy: 'proxy.example' }), (error: unknown) => error instanceof ConfigError && error.path === 'trustProxy');
});

test('CMS_CORS_ORIGINS and cors.origins: origins as browsers send them, never "*"', async () => {
  const load = (env: Record<string, string>, config: Record<string, unknown> = {}) => loadAppConfig({ env, cwd: tmpdir(), config });
  assert.deepEqual((await load({})).corsOrigins, []);
  assert.deepEqual((await load({}, { cors: { origins: ['https://www.example.com/', 'http://localhost:5173'] } })).corsOrigins, ['https://www.example.com', 'http://localhost:5173']);
  assert.deepEqual((await load({ CMS_CORS_ORIGINS: ' https://a.example:8443 ,http://b.example' })).corsOrigins, ['https://a.example:8443', 'http://b.example']);
  assert.deepEqual((await load({ CMS_CORS_ORIGINS: '' }, { cors: { origins: ['https://www.example.com'] } })).corsOrigins, [], 'an empty variable lists none');
  const star = await rejectsAt({ cors: { origins: ['*'] } }, 'cors.origins.0');
  assert.match(star.message, /"\*" is not allowed/);
  await rejectsAt({ cors: { origins: ['https://www.example.com/app'] } }, 'cors.origins.0');
  await rejectsAt({ cors: { origins: ['ftp://files.example'] } }, 'cors.origins.0');
  await rejectsAt({}, 'CMS_CORS_ORIGINS', { CMS_CORS_ORIGINS: 'www.example.com' });
  await rejectsAt({ cors: { origin: ['https://www.example.com'] } }, 'cors.origins');
});

test('options.columns: field names or { name, label }, the title first; an unknown name, a field no cell can show, a repeat or a bad shape stops the start', async () => {
  const withColumns = (columns: unknown) => ({
    modules: {
      article: article(
        { price: { type: 'float' }, body: { type: 'area' }, _author: { type: 'relationship', withType: '@cms/user' } },
        { columns },
      ),
    },
  });
  const load = async (columns: unknown) => (await loadAppConfig({ env: {}, cwd: tmpdir(), config: withColumns(columns) })).pieceTypes.get('article')!;
  assert.deepEqual((await load(undefined)).options.columns, [{ name: 'title', label: 'Title' }, { name: 'updatedAt', label: 'Last change' }]);
  assert.deepEqual((await load(['category', { name: 'price', label: 'Price (€)' }, 'createdAt'])).options.columns, [
    { name: 'title', label: 'Title' },
    { name: 'category', label: 'Category' },
    { name: 'price', label: 'Price (€)' },
    { name: 'createdAt', label: 'Created' },
  ]);
  assert.deepEqual((await load(['price', 'title'])).options.columns.map((column) => column.name), ['title', 'price'], 'the title moves first');
  assert.match((await rejectsAt(withColumns(['nope']), 'modules.article.options.columns.0')).message, /"nope" is no field of this type/);
  assert.match((await rejectsAt(withColumns(['category', 'body']), 'modules.article.options.columns.1')).message, /a area field cannot be shown in a list cell/);
  assert.match((await rejectsAt(withColumns(['_author']), 'modules.article.options.columns.0')).message, /a relationship field cannot be shown/);
  assert.match((await rejectsAt(withColumns(['price', 'price']), 'modules.article.options.columns.1')).message, /"price" is listed twice/);
  await rejectsAt(withColumns([{ name: 'nope', label: 'Nope' }]), 'modules.article.options.columns.0');
  await rejectsAt(withColumns('price'), 'modules.article.options.columns');
  await rejectsAt(withColumns([{ name: 'price', width: 3 }]), 'modules.article.options.columns.0');
});

test('labels and help may be given per language; the server resolves them to English, else the first', async () => {
  const recipe = {
    extend: '@cms/piece-type',
    options: { label: { de: 'Rezept', en: 'Recipe' }, pluralLabel: { fr: 'Recettes', de: 'Rezepte' } },
    fields: { add: { time: { type: 'integer', label: { en: 'Cooking time', de: 'Kochzeit' }, help: { de: 'In Minuten' } } } },
  };
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: { modules: { recipe } } });
  const { options, fields } = config.pieceTypes.get('recipe')!;
  assert.equal(options.label, 'Recipe');
  assert.equal(options.pluralLabel, 'Recettes', 'no English: the first given');
  assert.deepEqual(options.labelText, { de: 'Rezept', en: 'Recipe' });
  assert.deepEqual(options.pluralLabelText, { fr: 'Recettes', de: 'Rezepte' });
  const time = fields.find((field) => field.name === 'time')!;
  assert.equal(time.label, 'Cooking time');
  assert.equal(time.help, 'In Minuten');
  assert.deepEqual(time.labelText, { en: 'Cooking time', de: 'Kochzeit' });
  const plain = await loadAppConfig({ env: {}, cwd: tmpdir(), config: { modules: { article: article({}, { label: 'Story' }) } } });
  assert.equal(plain.pieceTypes.get('article')!.options.labelText, 'Story', 'a plain string still works');
  const choices = [{ label: { en: 'Starter', de: 'Vorspeise' }, value: 'starter' }, { label: 'Main', value: 'main' }, { label: '', value: '' }];
  const course = await loadAppConfig({ env: {}, cwd: tmpdir(), config: { modules: { article: article({ course: { type: 'select', choices } }) } } });
  const courseField = course.pieceTypes.get('article')!.fields.find((field) => field.name === 'course')!;
  assert.deepEqual(courseField.options.choices, choices, 'choice labels kept as configured, per language, plain, or empty');
});

test('a per-language label of another shape is refused with the path of the bad value', async () => {
  const message = /must be a non-empty string or an object of language code/;
  for (const [options, path] of [
    [{ label: {} }, 'modules.article.options.label'],
    [{ label: { en: '' } }, 'modules.article.options.label'],
    [{ pluralLabel: { en: 3 } }, 'modules.article.options.pluralLabel'],
    [{ label: { 'not a language': 'x' } }, 'modules.article.options.label'],
  ] as const) {
    const error = await rejectsAt({ modules: { article: article({}, options) } }, path);
    assert.match(error.message, message);
  }
  for (const [field, path] of [
    [{ type: 'string', label: ['Title'] }, 'modules.article.fields.add.category.label'],
    [{ type: 'string', help: { de: '' } }, 'modules.article.fields.add.category.help'],
    [{ type: 'string', label: 7 }, 'modules.article.fields.add.category.label'],
    [{ type: 'select', choices: [{ label: {}, value: 'a' }] }, 'modules.article.fields.add.category.choices.0.label'],
    [{ type: 'checkboxes', choices: [{ label: 'A', value: 'a' }, { label: { de: '' }, value: 'b' }] }, 'modules.article.fields.add.category.choices.1.label'],
    [{ type: 'select', choices: [{ label: { 'not a language': 'x' }, value: 'a' }] }, 'modules.article.fields.add.category.choices.0.label'],
    [{ type: 'select', choices: [{ label: ['A'], value: 'a' }] }, 'modules.article.fields.add.category.choices.0.label'],
    [{ type: 'select', choices: [{ value: 'a' }] }, 'modules.article.fields.add.category.choices.0.label'],
  ] as const) {
    const error = await rejectsAt({ modules: { article: article({ category: field }) } }, path);
    assert.match(error.message, message);
  }
});
