import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { testConfig } from '../helpers/test-app.js';
import { compile, expectedErrorLines, withoutExpectations, type Diagnostic } from '../helpers/typecheck.js';

/** A piece type with a field of every type, a custom widget, and a public projection of some of them. */
function everyFieldConfig(): Record<string, unknown> {
  const choices = (...values: string[]) => values.map((value) => ({ label: value, value }));
  return {
    widgets: { quote: { fields: { add: { quote: { type: 'string', required: true }, cite: { type: 'url' } } } } },
    modules: {
      gadget: {
        extend: '@cms/piece-type',
        options: { label: 'Gadget', publicApiProjection: { title: 1, text: 1, size: 1, file: 1, _friends: 1 } },
        fields: {
          add: {
            text: { type: 'string', label: 'Text', help: 'Any text' },
            count: { type: 'integer', min: 0 },
            ratio: { type: 'float' },
            flag: { type: 'boolean' },
            size: { type: 'select', choices: choices('small', 'large') },
            features: { type: 'checkboxes', choices: choices('wifi', 'gps') },
            day: { type: 'date' },
            at: { type: 'time' },
            when: { type: 'dateAndTime' },
            mail: { type: 'email' },
            site: { type: 'url' },
            shade: { type: 'color' },
            secret: { type: 'password' },
            rows: { type: 'array', fields: { add: { label: { type: 'string', required: true }, amount: { type: 'float' } } } },
            meta: { type: 'object', fields: { add: { note: { type: 'string' }, level: { type: 'integer' } } } },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, quote: {} } } },
            _friends: { type: 'relationship', withType: 'gadget', fields: { add: { role: { type: 'string' } } } },
            file: { type: 'attachment' },
          },
        },
      },
    },
  };
}

/** Runs `cms <args>` in `cwd` with `CMS_CONFIG` naming the configuration; answers the exit code and output. */
async function cms(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  const env = { CMS_CONFIG: 'cms.config.json', CMS_DATA_DIR: join(cwd, 'data') };
  const code = await runCli(args, { stdout, stderr, stdin: new PassThrough(), env, cwd });
  return { code, stdout: Buffer.concat(chunks.stdout).toString('utf8'), stderr: Buffer.concat(chunks.stderr).toString('utf8') };
}

async function projectWith(config: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-types-'));
  await writeFile(join(dir, 'cms.config.json'), JSON.stringify(config));
  return dir;
}

/** Zero diagnostics as written, and with the `@ts-expect-error` comments disarmed an error on each line they mark and nowhere else. */
async function assertTypechecks(files: Record<string, string>, example: string): Promise<void> {
  const line = (diagnostic: Diagnostic) => `${diagnostic.file}:${diagnostic.line}: ${diagnostic.message}`;
  assert.deepEqual((await compile({ ...files, 'example.ts': example })).map(line), []);
  const failing = await compile({ ...files, 'example.ts': withoutExpectations(example) });
  assert.ok(failing.every((diagnostic) => diagnostic.file === 'example.ts'), failing.map(line).join('\n'));
  assert.deepEqual([...new Set(failing.map((diagnostic) => diagnostic.line))], expectedErrorLines(example), failing.map(line).join('\n'));
}

/** Correct uses of the client on the test configuration, then one wrong use per marked line. */
const testConfigExample = `import { createCmsClient, CmsError } from 'cms-server/client';
import type { Article, ArticleInput, CmsPieceTypes, Note } from './cms-types.js';

const baseUrl = 'http://localhost:3000';
const client = createCmsClient<CmsPieceTypes>({ baseUrl, apiKey: 'a-key-of-sixteen-characters' });
const anonymous = createCmsClient<CmsPieceTypes>({ baseUrl });

export async function correct(): Promise<string[]> {
  const input: ArticleInput = { title: 'Hello', category: 'news', priority: 3, tags: ['news'], color: 'red', links: [{ label: 'Home', url: '/' }] };
  const created: Article = await client.insert('article', input, { mode: 'draft', locale: 'en' });
  const id: string = created._id;
  const priority: number | null | undefined = created.priority;
  const color: 'red' | 'blue' | null | undefined = created.color;
  const tags: ('news' | 'tech')[] | undefined = created.tags;
  const linkLabel: string | undefined = created.links?.[0]?.label;
  const authorName: string | undefined = created._author?.[0]?.username;
  await client.patch('article', id, { category: 'tech', $push: { tags: 'tech' } });
  const published: Article = await client.publish('article', id);
  const page = await client.list('article', { page: 1, perPage: 10, search: 'hello', sort: { updatedAt: -1 }, filters: { color: ['red'], priority: { min: 1 }, tags: 'news' }, mode: 'draft' });
  const titles = page.results.map((article) => article.title ?? '');
  const projected = await client.list('article', { project: ['title', 'slug'] });
  const slug: string | undefined = projected.results[0]?.slug;
  const note: Note = await client.get('note', 'a-doc-id', { mode: 'draft' });
  const publicPage = await anonymous.list('article', { filters: { category: 'news' } });
  const publicTitle: string | undefined = publicPage.results[0]?.title;
  const attachment = await client.upload(new Blob(['text']), 'notes.txt');
  try {
    await client.get('article', attachment._id);
  } catch (error) {
    if (error instanceof CmsError && error.status === 404) return [error.name, error.message];
  }
  return [id, String(priority), String(color), String(tags), String(linkLabel), String(authorName), published._id, ...titles, String(slug), note._id, String(publicTitle)];
}

export async function wrong(): Promise<void> {
  // @ts-expect-error a misspelt field name
  await client.insert('article', { title: 'x', categroy: 'news' });
  // @ts-expect-error the title is required
  await client.insert('article', { category: 'news' });
  // @ts-expect-error _id is the server's: not part of what is written
  await client.insert('article', { title: 'x', _id: 'mine' });
  // @ts-expect-error createdAt is the server's too
  await client.patch('article', 'id', { createdAt: '2020-01-01T00:00:00.000Z' });
  const article = await client.get('article', 'id');
  // @ts-expect-error not a choice of color
  if (article.color === 'green') return;
  // @ts-expect-error not a choice of tags
  await client.list('article', { filters: { tags: 'sports' } });
  // @ts-expect-error sorting by a field the type lacks
  await client.list('article', { sort: { nope: 1 } });
  const publicArticle = await anonymous.get('article', 'id');
  // @ts-expect-error the public projection hides priority
  publicArticle.priority;
  const publicList = await anonymous.list('article');
  // @ts-expect-error the public projection hides the links
  publicList.results[0]?.links;
  // @ts-expect-error notes have no public API: anonymous callers cannot read them
  await anonymous.list('note');
  // @ts-expect-error an unknown piece type
  await client.get('nope', 'id');
  const projected = await client.list('article', { project: ['title'] });
  // @ts-expect-error the projection left category out
  projected.results[0]?.category;
}
`;

/** Every field type's read, public and write shapes through the client. */
const everyFieldExample = `import { createCmsClient } from 'cms-server/client';
import type { CmsPieceTypes, Gadget } from './cms-types.js';

const client = createCmsClient<CmsPieceTypes>({ baseUrl: 'http://localhost:3000', apiKey: 'a-key-of-sixteen-characters' });
const anonymous = createCmsClient<CmsPieceTypes>({ baseUrl: 'http://localhost:3000' });

export async function correct(): Promise<unknown[]> {
  const gadget: Gadget = await client.insert('gadget', {
    title: 'Everything', text: 'text', count: 3, ratio: 0.5, flag: true, size: 'small', features: ['wifi'],
    day: '2025-01-02', at: '10:30', when: '2025-01-02T10:30:00Z', mail: 'a@example.com', site: 'https://example.com',
    shade: '#fc0', secret: 'correct horse', rows: [{ label: 'first', amount: 2.5 }], meta: { note: 'n', level: 2 },
    body: { items: [{ type: 'quote', quote: 'To be', cite: 'https://example.com' }, { type: '@cms/rich-text', content: '<p>x</p>' }] },
    _friends: ['a-doc-id', { _id: 'another', _fields: { role: 'twin' } }], file: { _id: 'an-attachment-id' },
  });
  const text: string | undefined = gadget.text;
  const count: number | null | undefined = gadget.count;
  const ratio: number | null | undefined = gadget.ratio;
  const flag: boolean | null | undefined = gadget.flag;
  const size: 'small' | 'large' | null | undefined = gadget.size;
  const features: ('wifi' | 'gps')[] | undefined = gadget.features;
  const dates: (string | null | undefined)[] = [gadget.day, gadget.at, gadget.when, gadget.mail, gadget.site, gadget.shade];
  const row: { label?: string; amount?: number | null } | undefined = gadget.rows?.[0];
  const level: number | null | undefined = gadget.meta?.level;
  const friendRole: string | undefined = gadget._friends?.[0]?._fields?.role;
  const friendIds: string[] | undefined = gadget.friendsIds;
  const fileUrl: string | undefined = gadget.file?._url;
  const quotes = (gadget.body?.items ?? []).flatMap((widget) => (widget.type === 'quote' ? [widget.quote] : []));
  const seen = await anonymous.get('gadget', 'a-doc-id');
  const shown: (string | null | undefined)[] = [seen.title, seen.text, seen.size, seen.file?._url];
  return [text, count, ratio, flag, size, features, dates, row, level, friendRole, friendIds, fileUrl, quotes, shown];
}

export async function wrong(): Promise<void> {
  const gadget = await client.get('gadget', 'id');
  // @ts-expect-error a password is written, never read
  gadget.secret;
  // @ts-expect-error not a choice of size
  if (gadget.size === 'medium') return;
  // @ts-expect-error not a choice of features
  await client.list('gadget', { filters: { features: ['bluetooth'] } });
  // @ts-expect-error an array item has no such field
  await client.insert('gadget', { title: 'x', rows: [{ label: 'x', colour: 'red' }] });
  // @ts-expect-error an area takes no such widget type field
  await client.insert('gadget', { title: 'x', body: { items: [{ type: 'quote', quote: 'x', author: 'me' }] } });
  // @ts-expect-error a related document's id is a string
  await client.insert('gadget', { title: 'x', _friends: [42] });
  // @ts-expect-error an attachment is named by its _id
  await client.insert('gadget', { title: 'x', file: { url: '/x.png' } });
  const seen = await anonymous.get('gadget', 'id');
  // @ts-expect-error the public projection hides count
  seen.count;
}
`;

describe('cms types: TypeScript types of the configured piece types', () => {
  let dir: string;
  let edgeDir: string;
  before(async () => {
    dir = await projectWith(testConfig());
    edgeDir = await projectWith(everyFieldConfig());
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(edgeDir, { recursive: true, force: true });
  });

  it('writes the module to standard output: interfaces per shape and the CmsPieceTypes map', async () => {
    const { code, stdout, stderr } = await cms(['types'], dir);
    assert.equal(stderr, '');
    assert.equal(code, 0);
    for (const name of ['Article', 'ArticlePublic', 'ArticleInput', 'ArticlePatch', 'Note', 'NoteInput', 'NotePatch', 'Attachment', 'Error']) {
      assert.match(stdout, new RegExp(`^export (interface|type) ${name}\\b`, 'm'), name);
    }
    assert.doesNotMatch(stdout, /^export (interface|type) NotePublic\b/m, 'notes have no public API');
    assert.match(stdout, /^ {2}"article": \{ read: Article; public: ArticlePublic; write: ArticleInput; patch: ArticlePatch \};$/m);
    assert.match(stdout, /^ {2}"note": \{ read: Note; public: never; write: NoteInput; patch: NotePatch \};$/m);
    assert.match(stdout, /^ {2}"@cms\/image": \{ read: CmsImage; public: CmsImagePublic; write: CmsImageInput; patch: CmsImagePatch \};$/m);
    assert.match(stdout, /\/\*\* Priority \*\/\n {2}priority\?: number \| null;\n/);
  });

  it('gives the same bytes for the same configuration, on stdout and in --out, and leaves an unchanged file alone', async () => {
    const first = await cms(['types'], dir);
    const second = await cms(['types'], dir);
    assert.equal(second.stdout, first.stdout);
    const written = await cms(['types', '--out', 'src/../cms-types.ts'], dir);
    assert.equal(written.code, 0);
    assert.equal(written.stdout, `wrote ${join(dir, 'cms-types.ts')}\n`);
    assert.equal(await readFile(join(dir, 'cms-types.ts'), 'utf8'), first.stdout);
    const before = await stat(join(dir, 'cms-types.ts'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await cms(['types', `--out=${join(dir, 'cms-types.ts')}`], dir);
    assert.equal(again.stdout, `unchanged ${join(dir, 'cms-types.ts')}\n`);
    assert.equal((await stat(join(dir, 'cms-types.ts'))).mtimeMs, before.mtimeMs);
  });

  it('refuses arguments it does not know with the usage (exit 2), and a broken configuration (exit 1)', async () => {
    for (const args of [['types', '--out'], ['types', '--out='], ['types', 'extra'], ['types', '--out', 'a.ts', '--out', 'b.ts']]) {
      const { code, stderr } = await cms(args, dir);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, /Usage: cms types \[--out <file>\]/);
    }
    const broken = await projectWith({ modules: { bad: { extend: '@cms/piece-type', fields: { add: { x: { type: 'nope' } } } } } });
    try {
      const { code, stdout, stderr } = await cms(['types'], broken);
      assert.equal(code, 1);
      assert.equal(stdout, '');
      assert.match(stderr, /^cms types: .*modules\.bad\.fields\.add\.x/);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });

  it('types the client for the test configuration: correct uses compile, each wrong use is an error', async () => {
    const { stdout } = await cms(['types'], dir);
    await assertTypechecks({ 'cms-types.ts': stdout }, testConfigExample);
  });

  it('types every field type, widgets, relationships and attachments', async () => {
    const { code, stdout } = await cms(['types'], edgeDir);
    assert.equal(code, 0);
    await assertTypechecks({ 'cms-types.ts': stdout }, everyFieldExample);
  });
});
