import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { loadAppConfig } from '../../src/load-app-config.js';
import { answerDependencies } from '../../src/content/documents/answer-dependencies.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

const piece = (add: Record<string, unknown>) => ({ extend: '@cms/piece-type', fields: { add } });

/**
 * `event` reaches `venue` directly, `person` through an array, `topic` only through a widget's
 * relationship, and attachments through `person`'s photo; `venue` reaches `event` (and all it
 * reaches) back through its reverse field.
 */
function scopesConfig(): Record<string, unknown> {
  return {
    locales: { en: { label: 'English' } },
    widgets: { quote: { fields: { add: { _source: { type: 'relationship', withType: 'topic' } } } } },
    modules: {
      event: piece({
        _hosts: { type: 'relationship', withType: 'venue' },
        sessions: { type: 'array', fields: { add: { _speakers: { type: 'relationship', withType: 'person' } } } },
        body: { type: 'area', options: { widgets: { quote: {} } } },
      }),
      person: piece({ photo: { type: 'attachment' } }),
      topic: piece({ code: { type: 'string' } }),
      venue: piece({ address: { type: 'string' }, _events: { type: 'relationshipReverse', withType: 'event' } }),
      room: piece({ floor: { type: 'integer' } }),
    },
  };
}

test('an answer is read from its type, the types it reaches at any depth, and the attachments they may hold', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: scopesConfig() });
  const dependencies = (name: string) => answerDependencies(config, createFieldTypeRegistry(), name);
  const published = (name: string) => [...dependencies(name).published].sort();
  const anyMode = (name: string) => [...dependencies(name).anyMode].sort();
  const inModes = (...types: string[]) => types.flatMap((type) => [`${type}:draft`, `${type}:published`]);
  // Below an area every widget type counts, whatever the area allows today (stored widgets may
  // predate a change of the configuration): the built-in image widget brings `@cms/image`, and
  // through its `_tags`, `@cms/image-tag`.
  const reached = ['@cms/image', '@cms/image-tag', 'event', 'person', 'topic', 'venue'];
  assert.deepEqual(published('event'), [attachmentsGenerationKey, ...reached.map((type) => `${type}:published`)].sort());
  assert.deepEqual(anyMode('event'), [attachmentsGenerationKey, ...inModes(...reached)].sort());
  assert.deepEqual(published('venue'), published('event'), 'back through the reverse field');
  assert.deepEqual(published('person'), [attachmentsGenerationKey, 'person:published']);
  assert.deepEqual(anyMode('topic'), inModes('topic'));
  assert.deepEqual(published('room'), ['room:published'], 'a type that reaches nothing reads only itself');
});

test('an answer that may show drafts depends on the drafts too; a type without modes on its one version', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: scopesConfig() });
  const room = answerDependencies(config, createFieldTypeRegistry(), 'room');
  assert.deepEqual(room.of('/api/v1/room?page=2'), ['room:published']);
  for (const url of ['/api/v1/room?cmsMode=draft', '/api/v1/room?cmsLocale=en:draft', '/api/v1/room/abc:en:draft', '/api/v1/room?cmsMode=dr%61ft']) {
    assert.deepEqual([...room.of(url)].sort(), ['room:draft', 'room:published'], url);
  }
  const user = answerDependencies(config, createFieldTypeRegistry(), '@cms/user');
  assert.deepEqual(user.of('/api/v1/@cms/user'), ['@cms/user:']);
});

test('what a document can show besides itself: the types reached through relationships (itself only through one of its own), by the schema', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: scopesConfig() });
  const relatedOf = (name: string, url = `/api/v1/${name}/x`) => [...answerDependencies(config, createFieldTypeRegistry(), name).relatedOf(url)].sort();
  assert.deepEqual(relatedOf('event'), [attachmentsGenerationKey, ...['@cms/image', '@cms/image-tag', 'event', 'person', 'topic', 'venue'].map((type) => `${type}:published`)].sort(), 'event comes back through venue');
  assert.deepEqual(relatedOf('room'), [], 'a type that reaches nothing');
  assert.deepEqual(relatedOf('person'), [attachmentsGenerationKey], 'its own attachments');
  assert.deepEqual(relatedOf('topic', '/api/v1/topic/x:en:draft'), []);
  assert.ok(relatedOf('venue', '/api/v1/venue/x:en:draft').includes('event:draft'), 'a draft answer: the drafts too');
});
