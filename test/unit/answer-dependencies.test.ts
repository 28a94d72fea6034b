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
  const sorted = (name: string) => [...answerDependencies(config, createFieldTypeRegistry(), name)].sort();
  // Below an area every widget type counts, whatever the area allows today (stored widgets may
  // predate a change of the configuration): the built-in image widget brings `@cms/image`.
  const all = [attachmentsGenerationKey, '@cms/image', 'event', 'person', 'topic', 'venue'].sort();
  assert.deepEqual(sorted('event'), all);
  assert.deepEqual(sorted('venue'), all, 'back through the reverse field');
  assert.deepEqual(sorted('person'), [attachmentsGenerationKey, 'person']);
  assert.deepEqual(sorted('topic'), ['topic']);
  assert.deepEqual(sorted('room'), ['room'], 'a type that reaches nothing reads only itself');
});
