import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The store's interface: one file per store, and the file that gathers them. */
const storageInterface = ['src/storage/storage-adapter.ts', 'src/storage/interface/'] as const;

/**
 * The dependency rules of README "Project layout", as data: each area of src/ (a folder, or one
 * file) and what its files may import besides their own area. A path ending in "/" is a folder.
 */
const mayImport: Readonly<Record<string, readonly string[]>> = {
  'src/errors/': [],
  // The leaf: document ids, modes, roles and the principal, shared by every layer.
  'src/core/': ['src/errors/'],
  'src/config/': ['src/core/', 'src/errors/'],
  'src/storage/': ['src/core/', 'src/errors/'],
  'src/content/': ['src/core/', 'src/errors/', 'src/config/', ...storageInterface],
  // Users come in through the narrow `UserDirectory` that the composition root builds on content.
  'src/auth/': ['src/core/', 'src/errors/', ...storageInterface],
  'src/media/': ['src/core/', 'src/errors/', 'src/config/', ...storageInterface],
  // No storage at all: a route names the little it needs of the store (health's `Pingable`).
  'src/http/': ['src/core/', 'src/errors/', 'src/config/', 'src/content/', 'src/auth/', 'src/media/'],
  // The MCP server: tools and resources translated onto the document operations, as http's routes are; the
  // composition root gives it the REST error mapping, so it knows no HTTP layer.
  'src/mcp/': ['src/core/', 'src/errors/', 'src/config/', 'src/content/'],
  // Sending the outbox's webhook deliveries: the content layer only writes them.
  'src/webhooks/': ['src/core/', 'src/errors/', 'src/config/', ...storageInterface],
  // Assembling: the configuration, the composition root, the process entry.
  'src/load-app-config.ts': ['src/config/', 'src/content/'],
  // The type of a configuration file, for editors (`cms-server/config`): from config's and content's schemas.
  'src/define-config.ts': ['src/core/', 'src/config/', 'src/content/'],
  'src/app.ts': ['src/'],
  // The composition root's content half (document operations, media), apart so the CLI loads no Fastify.
  'src/content-services.ts': ['src/core/', 'src/errors/', 'src/config/', 'src/content/', 'src/auth/', 'src/media/', ...storageInterface],
  'src/main.ts': ['src/'],
  // The primary of several server processes: it prepares the store and the setup code before forking.
  'src/cluster/': ['src/'],
  // The `cms` command line: like the server's entry, it assembles what its commands need.
  'src/cli/': ['src/'],
  // The typed client ships to browsers: it imports nothing of the server.
  'src/client/': [],
};

/** Packages only some areas may import: Fastify stays in http, each driver in its adapter, sharp behind one file. */
const packageOwners: Readonly<Record<string, readonly string[]>> = {
  fastify: ['src/http/', 'src/app.ts'],
  '@fastify/': ['src/http/', 'src/app.ts'],
  pg: ['src/storage/postgres/'],
  'better-sqlite3': ['src/storage/sqlite/'],
  sharp: ['src/media/image-processor.ts'],
  '@aws-sdk/': ['src/media/s3-file-storage.ts'],
  '@modelcontextprotocol/': ['src/mcp/'],
};

/**
 * Arrows that break the rules today and are being removed on another branch. Each must still
 * occur (the test says when one is gone), so the list cannot silently outlive its reason.
 */
const knownExceptions: ReadonlySet<string> = new Set<string>([]);

function covers(entry: string, path: string): boolean {
  return entry.endsWith('/') ? path.startsWith(entry) : path === entry;
}

/** The most specific entry of a table that covers a path. */
function ownerIn(table: Readonly<Record<string, unknown>>, path: string): string | undefined {
  return Object.keys(table)
    .filter((entry) => covers(entry, path))
    .sort((a, b) => b.length - a.length)[0];
}

async function sourceFiles(): Promise<string[]> {
  const names = await readdir(posix.join(root, 'src'), { recursive: true });
  return names.filter((name) => name.endsWith('.ts')).map((name) => posix.join('src', name.split('\\').join('/'))).sort();
}

/** Every module specifier of a file: static and dynamic imports and re-exports, comments ignored. */
async function specifiersOf(file: string): Promise<string[]> {
  const text = await readFile(posix.join(root, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
}

/** `./ids.js` from `src/core/x.ts` → `src/core/ids.ts`. */
function resolveRelative(file: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
}

function arrowBreaksRules(file: string, target: string): boolean {
  const area = ownerIn(mayImport, file)!;
  if (covers(area, target)) return false;
  return !mayImport[area]!.some((entry) => covers(entry, target));
}

function packageBreaksRules(file: string, specifier: string): boolean {
  const name = Object.keys(packageOwners).find((entry) =>
    entry.endsWith('/') ? specifier.startsWith(entry) : specifier === entry || specifier.startsWith(`${entry}/`),
  );
  return name !== undefined && !packageOwners[name]!.some((entry) => covers(entry, file));
}

/** Every `file -> target` arrow (or `file -> package`) the rules forbid, and files no rule covers. */
async function brokenArrows(): Promise<string[]> {
  const broken: string[] = [];
  for (const file of await sourceFiles()) {
    if (ownerIn(mayImport, file) === undefined) {
      broken.push(`${file}: in no area of the rules`);
      continue;
    }
    for (const specifier of await specifiersOf(file)) {
      if (specifier.startsWith('.')) {
        const target = resolveRelative(file, specifier);
        if (arrowBreaksRules(file, target)) broken.push(`${file} -> ${target}`);
      } else if (packageBreaksRules(file, specifier)) {
        broken.push(`${file} -> ${specifier}`);
      }
    }
  }
  return broken;
}

test('imports follow the layers: storage, config and the core leaf know no service, nothing but the roots imports http', async () => {
  const broken = await brokenArrows();
  assert.deepEqual(broken.filter((arrow) => !knownExceptions.has(arrow)), []);
  assert.deepEqual([...knownExceptions].filter((arrow) => !broken.includes(arrow)), [], 'a known exception no longer occurs: remove it');
});

/** Every file of src/ with the files of src/ it imports (relative specifiers only). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles()) {
    const specifiers = (await specifiersOf(file)).filter((specifier) => specifier.startsWith('.'));
    graph.set(file, specifiers.map((specifier) => resolveRelative(file, specifier)));
  }
  return graph;
}

/** Each import cycle once, as `a -> b -> a`, found by a depth-first walk from every file. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      cycles.push([...path.slice(at), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const target of graph.get(file) ?? []) visit(target, path);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

test('no module of src/ imports itself back, through any number of others', async () => {
  const graph = await importGraph();
  assert.ok(graph.has('src/storage/sqlite/sqlite-query.ts'), 'the sources were found');
  assert.deepEqual(cyclesOf(graph), []);
});

/**
 * The store knows no content rules: no adapter reads the content layer's `cmsLocale` (a
 * version's locale and mode come with its index) or names the generation key of attachment
 * writes (the adapter is given it), and no store has a `lock` to remember (a transaction names
 * what it holds). The type of a stored document declares `cmsLocale` as data it keeps as it
 * is; migrations that ran already are history and keep their SQL as it ran.
 */
test('the store knows no content rules: no adapter reads cmsLocale or names the attachments\' generation key, no store has lock()', async () => {
  const found: string[] = [];
  for (const file of await sourceFiles()) {
    if (!file.startsWith('src/storage/')) continue;
    const text = await readFile(posix.join(root, file), 'utf8');
    if (file !== 'src/storage/interface/documents.ts' && text.includes('cmsLocale')) found.push(`${file}: cmsLocale`);
    if (!file.endsWith('/migrations.ts') && text.includes("'(attachments)'")) found.push(`${file}: '(attachments)'`);
    if (file.startsWith('src/storage/interface/') && /^\s+lock\(/m.test(text)) found.push(`${file}: lock()`);
  }
  assert.deepEqual(found, []);
});

/**
 * A field type's name compared with a string (`field.type === 'area'`) outside the field registry:
 * what a field type does is a member of `FieldType`, asked through the registry. The files listed
 * compare a `type` that is no field's.
 */
const otherTypes: ReadonlySet<string> = new Set([
  // A multipart part: a file or a value.
  'src/http/routes/media.ts',
  // JSON Schema `type`s, turned into TypeScript declarations.
  'src/cli/types/types-module.ts',
  'src/cli/types/schema-to-typescript.ts',
  // A tar entry: a plain file or not.
  'src/cli/transfer/check-archive.ts',
  // A window message: a live preview's document or not.
  'src/client/live-preview.ts',
]);

test('outside content/fields no file asks a field its type by name: each such question is a FieldType member', async () => {
  const comparison = /\.type\s*[!=]==?\s*['"`]|['"`]\s*[!=]==?\s*\w+(\?)?\.type\b/;
  const asking: string[] = [];
  for (const file of await sourceFiles()) {
    if (file.startsWith('src/content/fields/') || otherTypes.has(file)) continue;
    const text = await readFile(posix.join(root, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (comparison.test(line)) asking.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(asking, []);
  for (const file of otherTypes) {
    assert.match(await readFile(posix.join(root, file), 'utf8'), comparison, `${file} no longer compares a type: remove it`);
  }
});

/** The script blocks of a Vue single-file component, or the whole file for TypeScript. */
function scriptOf(file: string, text: string): string {
  if (!file.endsWith('.vue')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]).join('\n');
}

async function adminFiles(): Promise<string[]> {
  const names = await readdir(posix.join(root, 'admin'), { recursive: true });
  return names
    .map((name) => posix.join('admin', name.split('\\').join('/')))
    .filter((name) => /\.(ts|vue)$/.test(name) && !name.includes('node_modules'))
    .sort();
}

test('the admin talks to the server only through the public API: it imports nothing of src/, and src/ nothing of it', async () => {
  const broken: string[] = [];
  for (const file of await adminFiles()) {
    const text = scriptOf(file, await readFile(posix.join(root, file), 'utf8'));
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), fileName));
      if (!target.startsWith('admin/')) broken.push(`${file} -> ${target}`);
    }
  }
  for (const file of await sourceFiles()) {
    for (const specifier of await specifiersOf(file)) {
      if (specifier.startsWith('.') && resolveRelative(file, specifier).startsWith('admin/')) broken.push(`${file} -> ${specifier}`);
    }
  }
  assert.ok((await adminFiles()).length > 10, 'the admin sources were found');
  assert.deepEqual(broken, []);
});

/** Issue 21's bound: the operations and their collaborators stay short enough to read in one sitting. */
const maxDocumentsFileLines = 250;

test(`no file in content/documents is longer than ${maxDocumentsFileLines} lines`, async () => {
  const files = (await sourceFiles()).filter((file) => file.startsWith('src/content/documents/'));
  assert.ok(files.length > 10, 'the document modules were found');
  const long: string[] = [];
  for (const file of files) {
    const lines = (await readFile(posix.join(root, file), 'utf8')).split('\n').length;
    if (lines > maxDocumentsFileLines) long.push(`${file}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
});

test('content shares behaviour through functions and collaborators, never through a class hierarchy', async () => {
  // Only errors extend a class: everything else in content is a function, or a class standing alone.
  const subclass = /\bclass\s+\w+(?:<[^>]*>)?\s+extends\s+(?!Error\b)\w+/;
  const found: string[] = [];
  for (const file of (await sourceFiles()).filter((name) => name.startsWith('src/content/'))) {
    const text = await readFile(posix.join(root, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (subclass.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

/** The routes call the operations through this interface; each of its methods is one module of `operations/`. */
test('every document operation a route can call is the module of its name in content/documents/operations', async () => {
  const text = await readFile(posix.join(root, 'src/content/documents/document-operations.ts'), 'utf8');
  const body = text.slice(text.indexOf('export interface DocumentOperations'), text.indexOf('export function documentOperations'));
  const methods = [...body.matchAll(/^ {2}(\w+)\(/gm)].map((match) => match[1]!);
  assert.ok(methods.includes('patch') && methods.includes('revertDraftToPublished'), 'the interface was read');
  const modules = new Set((await sourceFiles()).filter((file) => file.startsWith('src/content/documents/operations/')));
  const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  // answerDependencies answers no request: routes ask it once, when registered (answer-dependencies.ts);
  // runDueSchedules neither: the server's scheduler calls it on a timer (schedule-runner.ts).
  const notRoutes = new Set(['answerDependencies', 'runDueSchedules']);
  const missing = methods.filter((name) => !notRoutes.has(name) && !modules.has(`src/content/documents/operations/${kebab(name)}.ts`));
  assert.deepEqual(missing, []);
});

/*
 * If-Match and the advisory locks are checked by `TransactionRunner.runOnDocument`: an operation on
 * a stored document that opened its transaction any other way could skip them. Only an insert,
 * which has no stored version to check, opens its own.
 */
test('every operation on a stored document opens its transaction through runOnDocument', async () => {
  const operations = (await sourceFiles()).filter((file) => file.startsWith('src/content/documents/operations/'));
  const found: string[] = [];
  for (const file of operations) {
    const text = await readFile(posix.join(root, file), 'utf8');
    if (file.endsWith('/insert.ts')) continue;
    if (/transactions\.(run|runWithPasswords)\(/.test(text)) found.push(file);
  }
  assert.ok(operations.some((file) => file.endsWith('/patch.ts')), 'the operations were read');
  assert.deepEqual(found, []);
});

/** `../i18n` from `admin/src/x/y.ts` → `admin/src/i18n/index.ts`: the file Vite resolves it to, of those in `files`. */
function resolveAdmin(file: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  return [target, `${target}.ts`, `${target}/index.ts`].find((candidate) => files.has(candidate));
}

/**
 * Every module of the admin with those it imports at run time: a type-only import is erased by
 * the build, so it closes no loop of evaluation.
 */
async function adminImportGraph(): Promise<Map<string, string[]>> {
  const files = await adminFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const runtime = scriptOf(file, await readFile(posix.join(root, file), 'utf8')).replace(/^\s*(import|export) type\b[^;]*;/gm, '');
    const targets = ts.preProcessFile(runtime, true, true).importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => resolveAdmin(file, fileName, known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/**
 * A loop of the admin's script modules is evaluated in an order that leaves one of them half
 * initialised when another reads it (i18n -> preferences -> api/client -> i18n did). A loop
 * through components is the nesting of fields (a field's component renders the list of fields
 * that holds it), resolved only when rendering, long after every module ran.
 */
test('no script module of the admin imports itself back at run time, components aside', async () => {
  const graph = await adminImportGraph();
  assert.ok(graph.get('admin/src/api/client.ts')?.includes('admin/src/i18n/index.ts'), 'the admin\'s imports were resolved');
  assert.deepEqual(cyclesOf(graph).filter((cycle) => !cycle.includes('.vue')), []);
});
