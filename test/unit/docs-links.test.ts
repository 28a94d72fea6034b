import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from dist/test/unit). */
const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The documentation whose links are checked: the README, CONTRIBUTING.md, docs/**.md, bench/*.md. */
function documentationFiles(): string[] {
  const inDocs = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? inDocs(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : []);
  const bench = readdirSync(join(root, 'bench')).filter((name) => name.endsWith('.md')).map((name) => join(root, 'bench', name));
  return [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...inDocs(join(root, 'docs')), ...bench];
}

/** Markdown outside fenced code blocks, where links and headings are what they look like. */
function outsideCode(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's heading anchors: lower case, spaces to `-`, punctuation but `-` and `_` dropped; repeats get `-1`, `-2`… */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideCode(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\-_ ]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** Every `[text](target)` link outside code, with inline code stripped first (it may hold brackets). */
export function links(text: string): string[] {
  return outsideCode(text).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]));
}

/** Why a relative link of `file` is broken, or undefined when it points at a file (and heading) that exists. */
function brokenBecause(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http(s), mailto: not fetched
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!existsSync(destination)) return `no file ${relative(root, destination)}`;
  if (anchor === undefined) return undefined;
  if (statSync(destination).isDirectory() || !destination.endsWith('.md')) return `an anchor into ${relative(root, destination)}`;
  const anchors = headingAnchors(readFileSync(destination, 'utf8'));
  return anchors.has(anchor) ? undefined : `no heading #${anchor} in ${relative(root, destination)}`;
}

test('GitHub anchors drop punctuation but - and _, and number repeated headings', () => {
  assert.deepEqual([...headingAnchors('# Stores and processes\n## Several processes (`CMS_WORKERS`)\n## `POST /api/v1/<type>` — insert\n```sh\n# not a heading\n```\n## Users\n## Users\n')],
    ['stores-and-processes', 'several-processes-cms_workers', 'post-apiv1type--insert', 'users', 'users-1']);
  assert.deepEqual(links('[a](b.md#c) `[x](not-a-link)` [d](https://e.example) ![f](g.png)\n```\n[h](in-code.md)\n```'), ['b.md#c', 'https://e.example', 'g.png']);
});

test('every relative link of the README, CONTRIBUTING.md, docs/ and bench/ points at a file and heading that exist', () => {
  const files = documentationFiles();
  assert.ok(files.some((file) => file.endsWith(join('docs', 'reference', 'limits.md'))), 'the reference pages are found');
  const broken = files.flatMap((file) => links(readFileSync(file, 'utf8'))
    .map((target) => ({ target, why: brokenBecause(file, target) }))
    .filter(({ why }) => why !== undefined)
    .map(({ target, why }) => `${relative(root, file)}: (${target}) ${why}`));
  assert.deepEqual(broken, []);
});

test('the README stays a short walk: under 200 lines, linking every page of docs/', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length < 200, `README.md has ${readme.split('\n').length} lines`);
  const index = readFileSync(join(root, 'docs', 'README.md'), 'utf8');
  const pages = documentationFiles().filter((file) => file.startsWith(join(root, 'docs')) && !file.endsWith(join('docs', 'README.md')));
  const unlisted = pages.map((file) => relative(join(root, 'docs'), file)).filter((page) => !links(index).includes(page));
  assert.deepEqual(unlisted, [], 'docs/README.md lists every page');
});
