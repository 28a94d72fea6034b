import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { limitDefinitions } from '../../src/config/limits.js';

/** The limits table moved from the README to its own reference page. */
const limitsPage = fileURLToPath(new URL('../../../docs/reference/limits.md', import.meta.url));

test('docs/reference/limits.md lists every limit with its variable, default and bounds', async () => {
  const text = await readFile(limitsPage, 'utf8');
  const missing = Object.entries(limitDefinitions).filter(([name, def]) => {
    const row = text.split('\n').find((line) => line.startsWith(`| \`${name}\` | \`${def.env}\` |`));
    const bounds = `${def.min.toLocaleString('en-US')}–${def.max.toLocaleString('en-US')}`;
    return !row || !row.includes(`| ${def.default.toLocaleString('en-US')} ${def.unit} | ${bounds} |`);
  });
  assert.deepEqual(missing.map(([name]) => name), []);
});
