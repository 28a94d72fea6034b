import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { loadAppConfig } from '../../src/load-app-config.js';
import { ConfigError } from '../../src/errors/app-error.js';
import { changeEventNames } from '../../src/config/webhooks-config.js';

const secret = 'webhook-secret-0123456789abcdef';
const modules = { article: { extend: '@cms/piece-type', options: { label: 'Article' } } };
const load = (webhooks: unknown, env: Record<string, string> = {}) =>
  loadAppConfig({ env, cwd: tmpdir(), config: webhooks === undefined ? { modules } : { modules, webhooks } });

async function rejectsAt(webhooks: unknown, path: string, env: Record<string, string> = {}): Promise<string> {
  const error = await load(webhooks, env).then(() => null, (caught: unknown) => caught);
  assert.ok(error instanceof ConfigError, `expected a ConfigError at ${path}, got ${String(error)}`);
  assert.equal(error.path, path, error.message);
  return error.message;
}

test('no webhooks unless configured', async () => {
  assert.deepEqual((await load(undefined)).webhooks, []);
});

test('an endpoint takes every event by default and its URL as its name', async () => {
  const [endpoint] = (await load([{ url: 'https://hooks.example/cms', secret, types: ['article'] }])).webhooks;
  assert.deepEqual(endpoint, { name: 'https://hooks.example/cms', url: 'https://hooks.example/cms', secret, types: ['article'], events: [...changeEventNames], maxPurgeTags: 100 });
  const [fastly] = (await load([{ url: 'https://hooks.example/cms', secret, types: ['article'], events: ['cache.purge'], maxPurgeTags: 256 }])).webhooks;
  assert.equal(fastly!.maxPurgeTags, 256);
});

test('the secret may come from the environment, and CMS_WEBHOOKS replaces the file\'s list', async () => {
  const fromEnv = { name: 'search', url: 'http://127.0.0.1:9000/hook', secret: { env: 'SEARCH_HOOK_SECRET' }, types: '*', events: ['publish', 'unpublish'] };
  const [endpoint] = (await load([fromEnv], { SEARCH_HOOK_SECRET: secret })).webhooks;
  assert.equal(endpoint!.secret, secret);
  assert.deepEqual(endpoint!.events, ['publish', 'unpublish']);
  const replaced = await load([fromEnv], { CMS_WEBHOOKS: JSON.stringify([{ url: 'https://other.example/', secret, types: ['article'] }]) });
  assert.deepEqual(replaced.webhooks.map((webhook) => webhook.url), ['https://other.example/']);
});

test('a broken endpoint stops the start naming its key path, never the secret', async () => {
  const good = { url: 'https://hooks.example/cms', secret, types: ['article'] };
  await rejectsAt({ ...good }, 'webhooks');
  await rejectsAt([{ ...good, extra: 1 }], 'webhooks.0.extra');
  await rejectsAt([{ ...good, url: 'ftp://hooks.example/' }], 'webhooks.0.url');
  await rejectsAt([{ ...good, url: 'https://user:pw@hooks.example/' }], 'webhooks.0.url');
  await rejectsAt([{ ...good, events: ['created'] }], 'webhooks.0.events.0');
  await rejectsAt([{ ...good, types: [] }], 'webhooks.0.types');
  for (const maxPurgeTags of [0, 10_001, 2.5, '100']) await rejectsAt([{ ...good, maxPurgeTags }], 'webhooks.0.maxPurgeTags');
  await rejectsAt([good, { ...good, name: 'other', types: ['article', 'nope'] }], 'webhooks.1.types.1');
  await rejectsAt([good, good], 'webhooks.1.name');
  const short = await rejectsAt([{ ...good, secret: 'short-secret' }], 'webhooks.0.secret');
  assert.ok(!short.includes('short-secret'));
  await rejectsAt([{ ...good, secret: '' }], 'webhooks.0.secret');
  await rejectsAt([{ ...good, secret: { env: 'MISSING_SECRET' } }], 'webhooks.0.secret (MISSING_SECRET)');
  await rejectsAt(undefined, 'CMS_WEBHOOKS', { CMS_WEBHOOKS: '{not json' });
  await rejectsAt(undefined, 'CMS_WEBHOOKS.0.secret', { CMS_WEBHOOKS: JSON.stringify([{ ...good, secret: 1 }]) });
});
