import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ElementNode, TemplateChildNode } from '@vue/compiler-dom';
// The SFC parser splits a component; its template's AST is @vue/compiler-dom's.
import { parse } from 'vue/compiler-sfc';

/**
 * The admin speaks the editor's language only if every word of its own interface comes from the
 * message catalogues (admin/src/i18n/messages). This reads the sources: a text or a static
 * label-like attribute with letters in a template, or a literal handed to the notify / confirm
 * helpers, is a word that no catalogue translates.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const sourceDir = join(root, 'admin/src');
const catalogueDir = join(sourceDir, 'i18n/messages');
const languages = ['en', 'es', 'fr', 'de'] as const;
/** Attributes people read or hear (tooltips, accessible names, placeholders, alternative texts, labels passed on). */
const readAttributes = new Set(['placeholder', 'title', 'aria-label', 'alt', 'label']);
const letters = /\p{L}/u;
/** vue-compiler NodeTypes: ELEMENT, TEXT. */
const ELEMENT = 1;
const TEXT = 2;
const ATTRIBUTE = 6;

function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${join('src', 'api', 'generated')}`))
    .sort();
}

const vueFiles = filesUnder(sourceDir, '.vue');
const scriptFiles = filesUnder(sourceDir, '.ts');
const where = (file: string, line: number) => `${relative(root, file)}:${line}`;

function flatten(messages: Record<string, unknown>, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') flat.set(path, value);
    else for (const [inner, text] of flatten(value as Record<string, unknown>, path)) flat.set(inner, text);
  }
  return flat;
}

const catalogues = new Map(
  languages.map((language) => [language, flatten(JSON.parse(readFileSync(join(catalogueDir, `${language}.json`), 'utf8')) as Record<string, unknown>)]),
);
const english = catalogues.get('en')!;

/** Texts and static read attributes with letters, anywhere in a template; `<code>` holds code, not words. */
function untranslated(nodes: readonly TemplateChildNode[], file: string, found: string[]): void {
  for (const node of nodes) {
    if (node.type === TEXT && letters.test(node.content)) found.push(`${where(file, node.loc.start.line)} text "${node.content.trim()}"`);
    if (node.type !== ELEMENT) continue;
    const element = node as ElementNode;
    for (const prop of element.props) {
      if (prop.type === ATTRIBUTE && readAttributes.has(prop.name) && prop.value && letters.test(prop.value.content)) {
        found.push(`${where(file, prop.loc.start.line)} ${prop.name}="${prop.value.content}"`);
      }
    }
    if (element.tag !== 'code') untranslated(element.children, file, found);
  }
}

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

test('every text and read attribute of every admin template comes from the catalogue', () => {
  const found: string[] = [];
  for (const file of vueFiles) {
    const { descriptor, errors } = parse(readFileSync(file, 'utf8'), { filename: file });
    assert.deepEqual(errors, [], `${relative(root, file)} parses`);
    if (descriptor.template?.ast) untranslated(descriptor.template.ast.children, file, found);
  }
  assert.ok(vueFiles.length > 50, `the admin's components are found (${vueFiles.length})`);
  assert.deepEqual(found, [], `words not from the catalogue:\n${found.join('\n')}`);
});

test('no literal words are handed to the notify, confirm or upload-refusal helpers', () => {
  const found: string[] = [];
  const calls = [
    /\bnotify\(\s*(?:['"]|`[^$`]*\p{L})/gu,
    /\brefuse\([^,]+,\s*(?:['"]|`[^$`]*\p{L})/gu,
    /\bconfirmAction\(\{[^}]*?\b(?:title|message|confirmLabel):\s*(?:['"]|`[^$`]*\p{L})/gu,
  ];
  for (const file of [...scriptFiles, ...vueFiles]) {
    const source = readFileSync(file, 'utf8');
    for (const pattern of calls) for (const match of source.matchAll(pattern)) found.push(`${where(file, lineOf(source, match.index))} ${match[0]}`);
  }
  assert.deepEqual(found, [], `literal words given to the helpers:\n${found.join('\n')}`);
});

test('every key the admin uses exists in every catalogue', () => {
  const namespaces = new Set([...english.keys()].map((key) => key.split('.')[0]!));
  const missing: string[] = [];
  const used = new Set<string>();
  for (const file of [...scriptFiles, ...vueFiles]) {
    if (file.startsWith(catalogueDir)) continue;
    const source = readFileSync(file, 'utf8');
    // Direct lookups (t('…'), $t('…'), keypath="…") must be keys; any other literal shaped like a
    // key of a known area ('users.roleOf' in a ternary, a route's title) is checked as one too.
    const direct = [...source.matchAll(/\$?\bt\(\s*(['"])([^'"]+)\1/g), ...source.matchAll(/\bkeypath=(")([^"]+)"/g)].map((match) => ({ key: match[2]!, index: match.index }));
    const shaped = [...source.matchAll(/'([a-zA-Z]+(?:\.[a-zA-Z-]+)+)'/g)]
      .filter((match) => namespaces.has(match[1]!.split('.')[0]!))
      .map((match) => ({ key: match[1]!, index: match.index }));
    for (const { key, index } of [...direct, ...shaped]) {
      used.add(key);
      for (const [language, catalogue] of catalogues) if (!catalogue.has(key)) missing.push(`${where(file, lineOf(source, index))} "${key}" missing in ${language}`);
    }
  }
  assert.ok(used.size > 300, `the admin's keys are found (${used.size})`);
  assert.deepEqual([...new Set(missing)], [], `keys missing:\n${[...new Set(missing)].join('\n')}`);
});

test('the four catalogues have exactly the same keys, each translated with the same placeholders', () => {
  const placeholders = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]))].sort().join(',');
  for (const [language, catalogue] of catalogues) {
    assert.deepEqual([...catalogue.keys()].sort(), [...english.keys()].sort(), `${language} has the keys of en`);
    const differing = [...catalogue].filter(([key, text]) => text.trim() === '' || placeholders(text) !== placeholders(english.get(key)!));
    assert.deepEqual(differing, [], `${language} messages empty or with other placeholders than en`);
  }
});

test('the server names the built-in list columns nobody labelled with the English catalogue\'s words, which column-label.ts translates', async () => {
  const { loadAppConfig } = await import('../../src/load-app-config.js');
  const article = { extend: '@cms/piece-type', options: { label: 'Article', columns: ['updatedAt', 'createdAt'] } };
  const config = await loadAppConfig({ env: {}, cwd: root, config: { modules: { article } } });
  const labels = Object.fromEntries(config.pieceTypes.get('article')!.options.columns.map((column) => [column.name, column.label]));
  assert.deepEqual(labels, { title: english.get('listTable.title'), updatedAt: english.get('listTable.lastChange'), createdAt: english.get('listTable.created') });
});
