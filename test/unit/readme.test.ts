import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { limitDefinitions } from '../../src/config/limits.js';

const readme = fileURLToPath(new URL('../../../README.md', import.meta.url));

test('the README lists every limit with its variable and default', async () => {
  const text = await readFile(readme, 'utf8');
  const missing = Object.entries(limitDefinitions).filter(([name, def]) => {
    const row = text.split('\n').find((line) => line.startsWith(`| \`${name}\` | \`${def.env}\` |`));
    return !row || !row.includes(`| ${def.default.toLocaleString('en-US')} ${def.unit} |`);
  });
  assert.deepEqual(missing.map(([name]) => name), []);
});
