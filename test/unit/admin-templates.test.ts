import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Vue condenses a template's whitespace: a text of spaces alone that opens an element's content
 * is dropped, `&#32;` too, so `<span>&#32;{{ t('x') }}</span>` renders its words glued to the
 * ones before ("Browse mediafor Hero Image"). The space belongs in the interpolation instead
 * (`{{ ` ${t('x')}` }}`).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const sourceDir = join(root, 'admin/src');
const openingSpace = /<[a-zA-Z][^<>]*>&#32;/g;

function vueFiles(): string[] {
  return readdirSync(sourceDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.vue'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

test('no element of an admin template opens with a space Vue would drop (&#32;)', () => {
  const files = vueFiles();
  assert.ok(files.length > 20, 'the components were found');
  const found = new Map<string, number>();
  for (const file of files) {
    const template = readFileSync(file, 'utf8').match(/<template>([\s\S]*)<\/template>/)?.[1] ?? '';
    const count = [...template.matchAll(openingSpace)].length;
    if (count > 0) found.set(relative(root, file).split('\\').join('/'), count);
  }
  assert.deepEqual([...found.keys()], []);
});
