import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { loadAppConfig } from '../../src/load-app-config.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { walkFields } from '../../src/content/fields/walk-fields.js';
import { testConfig } from '../helpers/test-app.js';

/*
 * Stored values as large as raised limits allow (limits.arrayItems): walking them must not spread
 * them into a call. push(...items) overflows the stack from about 125,000 items, which answered
 * a 500. (The search-text collector had the same spread, one entry per rich-text widget; its test
 * would cost seconds of sanitizer runs.)
 */
const count = 150_000;

async function article() {
  const config = await loadAppConfig({ env: {}, cwd: tmpdir(), config: testConfig() });
  return { config, type: config.pieceTypes.get('article')! };
}

test('walkFields visits every item of an array of 150,000 items', async () => {
  const { config, type } = await article();
  const links = Array.from({ length: count }, () => ({ _id: 'x', metaType: 'arrayItem', label: 'a' }));
  let labels = 0;
  walkFields({ fields: type.fields, values: { title: 'Long', links } }, { registry: createFieldTypeRegistry(), widgetTypes: config.widgetTypes }, (field) => {
    if (field.name === 'label') labels++;
  });
  assert.equal(labels, count);
});
