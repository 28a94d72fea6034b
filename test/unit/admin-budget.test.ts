import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** What the admin's first load may cost in JavaScript, gzipped: a budget for slow connections. */
const javascriptBudget = 250 * 1024;

const adminDir = fileURLToPath(new URL('../../admin', import.meta.url));
const shell = join(adminDir, 'index.html');

interface FirstLoadFile {
  readonly url: string;
  readonly kind: 'script' | 'stylesheet';
}

/** The value of one attribute of a tag's text, quoted or not; undefined when absent. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/**
 * What a browser fetches before the admin can show anything: the shell's scripts (inline ones
 * cost nothing more), the modules it preloads and its stylesheets. Chunks loaded later, by a
 * route's dynamic import, are not part of the first load.
 */
function firstLoadFiles(html: string): FirstLoadFile[] {
  const files: FirstLoadFile[] = [];
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/gi)) {
    const isScript = /^<script/i.test(tag);
    const url = attribute(tag, isScript ? 'src' : 'href');
    const rel = attribute(tag, 'rel')?.toLowerCase();
    if (!url) continue;
    if (isScript || rel === 'modulepreload') files.push({ url, kind: 'script' });
    else if (rel === 'stylesheet') files.push({ url, kind: 'stylesheet' });
  }
  return files;
}

/** `/admin/assets/x.js` → the file in the build. */
function builtFile(url: string): string {
  const path = new URL(url, 'http://admin.invalid/admin/').pathname;
  assert.ok(path.startsWith('/admin/'), `${url} is not under /admin/`);
  return join(adminDir, decodeURIComponent(path.slice('/admin/'.length)));
}

async function gzippedSize(file: string): Promise<number> {
  return gzipSync(await readFile(file), { level: 9 }).length;
}

test('finds the scripts, module preloads and stylesheets of a shell', () => {
  const html = `<!doctype html><head>
    <script type="module" crossorigin src="/admin/assets/index-a1.js"></script>
    <link rel="modulepreload" crossorigin href="/admin/assets/vendor-b2.js">
    <link rel=stylesheet href='/admin/assets/index-c3.css'>
    <link rel="icon" href="/admin/assets/favicon-d4.svg"><script>window.inline = 1</script></head>`;
  assert.deepEqual(firstLoadFiles(html), [
    { url: '/admin/assets/index-a1.js', kind: 'script' },
    { url: '/admin/assets/vendor-b2.js', kind: 'script' },
    { url: '/admin/assets/index-c3.css', kind: 'stylesheet' },
  ]);
});

test(
  `the admin's first load is at most ${javascriptBudget / 1024} KB of gzipped JavaScript`,
  { skip: existsSync(shell) ? false : `no admin build at ${shell}: run npm run build to measure the admin's first load` },
  async (t) => {
    const files = firstLoadFiles(await readFile(shell, 'utf8'));
    assert.ok(files.some((file) => file.kind === 'script'), 'the shell loads no script');
    const totals = { script: 0, stylesheet: 0 };
    for (const file of files) totals[file.kind] += await gzippedSize(builtFile(file.url));
    const kb = (bytes: number) => (bytes / 1024).toFixed(1);
    t.diagnostic(`admin first load, gzipped: ${kb(totals.script)} KB of JavaScript (budget ${kb(javascriptBudget)} KB) in ${files.filter((f) => f.kind === 'script').length} files, ${kb(totals.stylesheet)} KB of CSS`);
    assert.ok(totals.script <= javascriptBudget, `${kb(totals.script)} KB of JavaScript, over the ${kb(javascriptBudget)} KB budget`);
  },
);

/** Whether a built script holds the rich-text editor: ProseMirror's class, which its view sets on every editor. */
const holdsRichTextEditor = (code: string) => code.includes('ProseMirror');

test(
  'the rich-text editor (tiptap, ProseMirror) is in a chunk of its own, not in the first load',
  { skip: existsSync(shell) ? false : `no admin build at ${shell}: run npm run build to look at the admin's chunks` },
  async () => {
    const assets = join(adminDir, 'assets');
    const scripts = (await readdir(assets)).filter((name) => name.endsWith('.js'));
    const withEditor: string[] = [];
    for (const name of scripts) if (holdsRichTextEditor(await readFile(join(assets, name), 'utf8'))) withEditor.push(name);
    assert.equal(withEditor.length, 1, `one chunk holds the rich-text editor: ${withEditor.join(', ') || 'none'}`);
    const firstLoad = firstLoadFiles(await readFile(shell, 'utf8')).filter((file) => file.kind === 'script');
    for (const file of firstLoad) {
      assert.ok(!holdsRichTextEditor(await readFile(builtFile(file.url), 'utf8')), `${file.url}, loaded first, holds the rich-text editor`);
    }
  },
);
