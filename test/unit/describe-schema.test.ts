import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { loadAppConfig } from '../../src/load-app-config.js';
import { SchemaDescriber } from '../../src/content/schema/describe-schema.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { anonymous, type Principal } from '../../src/core/principal.js';
import { testConfig } from '../helpers/test-app.js';

function caller(kind: Principal['kind'], role: Principal['role']): Principal {
  return { kind, role, userId: kind === 'user' ? 'u1' : null, title: null, username: null };
}

test('the schema is built and serialized once per role, whoever holds it', async () => {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: testConfig() });
  const describer = new SchemaDescriber(config, createFieldTypeRegistry());
  const byKey = describer.describe(caller('apiKey', 'editor'));
  // The same object: nothing is rebuilt for the next caller of that role.
  assert.equal(describer.describe(caller('user', 'editor')), byKey);
  assert.equal(describer.describe(anonymous), describer.describe(anonymous));
  assert.notEqual(describer.describe(caller('apiKey', 'admin')).digest, byKey.digest);
  assert.deepEqual(JSON.parse(byKey.json).types.article.can.publish, true);
});
