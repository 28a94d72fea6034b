import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { postgresUrl } from '../helpers/postgres.js';
import { listFiles, makeImage, upload, uploadsDir } from '../helpers/media.js';
import { runCli } from '../helpers/cli-store.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { entriesOf, postgresTarget, sqliteTarget, withPart, type Target } from '../helpers/archive.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/**
 * Every bound `cms import` checks is enforced when the API writes, so a store exported holds
 * nothing its import refuses; and import launders rich text again, as a write does.
 */

// Small limits, so that values at each limit stay quick to write, export and import; the record
// with a title, slug and string at their bounds and a full area takes a little less than
// archiveRecordBytes, and a URL at most stringLength long fills it exactly.
const limits = { stringLength: 30_000, areaWidgets: 20, archiveRecordBytes: 235_000 };
const codeMax = 5_000;

function boundsConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  const record = {
    extend: '@cms/piece-type',
    options: { label: 'Record', localized: false },
    fields: { add: { code: { type: 'string', max: codeMax }, site: { type: 'url' }, body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } } } },
  };
  return { ...config, limits, modules: { ...modules, record } };
}

const slugMax = 10_000;

const hostileParts = ['<script', 'alert(1)</script>', 'onerror', 'javascript:'];

describe('what the API stores, cms import takes back', () => {
  let work: string;
  let configPath: string;
  let app: TestApp;
  const cms = (args: string[], env: Record<string, string>) => runCli(args, { env: { CMS_CONFIG: configPath, CMS_LOG_LEVEL: 'silent', ...env } });
  const sourceEnv = () => ({ CMS_DATA_DIR: app.dataDir, CMS_DATABASE_URL: app.databaseUrl });

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'cms-bounds-'));
    configPath = join(work, 'cms.config.json');
    await writeFile(configPath, JSON.stringify(boundsConfig()));
    app = await startTestApp(boundsConfig());
  });

  after(async () => {
    await app?.close();
    await rm(work, { recursive: true, force: true });
  });

  async function versionCount(): Promise<number> {
    const response = await app.request('GET', '/api/v1/article?cmsMode=draft&archived=any&count=1');
    assert.equal(response.status, 200, response.text);
    return response.body.count;
  }

  function assertRefused(response: { status: number; body: any; text: string }, path: string, max: number): void {
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.name, 'invalid');
    assert.deepEqual(response.body.data.errors, [{ name: 'max', code: 400, path, message: `must be at most ${max} characters`, data: { max } }]);
  }

  it("refuses a contributor's draft whose slug is longer than an archive allows, by POST and by PATCH, storing nothing", async () => {
    const before = await versionCount();
    const long = 'a'.repeat(19_999);
    const posted = await app.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Long slug', slug: long } });
    assertRefused(posted, 'slug', slugMax);
    assert.equal(await versionCount(), before, 'nothing stored');

    const draft = await app.request('POST', '/api/v1/article?cmsMode=draft', { key: 'contributor', body: { title: 'Short slug' } });
    assert.equal(draft.status, 200, draft.text);
    const patched = await app.request('PATCH', `/api/v1/article/${draft.body._id}`, { key: 'contributor', body: { slug: long } });
    assertRefused(patched, 'slug', slugMax);
    const stored = await app.request('GET', `/api/v1/article/${draft.body._id}`);
    assert.equal(stored.body.slug, 'short-slug');
    // A long title makes a slug cut to fit; a prefix and a `-n` still fit.
    const titled = await app.request('POST', '/api/v1/@cms/user', { body: { title: 't'.repeat(20_000), username: 'long-title', role: 'guest' } });
    assert.equal(titled.status, 200, titled.text);
    assert.ok(titled.body.slug.length <= slugMax && titled.body.slug.startsWith('user-t'), titled.body.slug.length);
  });

  it('refuses a login whose username or email is longer than an archive allows', async () => {
    const users = async () => (await app.request('GET', '/api/v1/@cms/user?count=1')).body.count;
    const before = await users();
    assertRefused(await app.request('POST', '/api/v1/@cms/user', { body: { title: 'U', username: 'u'.repeat(1001), role: 'guest' } }), 'username', 1000);
    const email = `${'e'.repeat(995)}@x.org`;
    assertRefused(await app.request('POST', '/api/v1/@cms/user', { body: { title: 'E', username: 'e', email, role: 'guest' } }), 'email', 1000);
    assert.equal(await users(), before, 'nothing stored');
  });

  it('refuses an image wider than an archive allows, storing nothing', async () => {
    const attachments = () => listFiles(uploadsDir(app));
    const before = await attachments();
    const wide = await upload(app, 'wide.png', await makeImage('png', 1_000_001, 1));
    assert.equal(wide.status, 400, wide.text);
    assert.deepEqual(wide.body, { name: 'invalid', message: 'The image is 1000001×1 pixels: at most 1000000 on a side', data: { max: 1_000_000 } });
    assert.deepEqual(await attachments(), before);
  });

  /** A draft whose stored JSON takes exactly `archiveRecordBytes`, found from the refusal of a larger one. */
  async function fillRecord(id: string): Promise<void> {
    const padTo = async (length: number) => app.request('PATCH', `/api/v1/record/${id}`, { body: { site: `/${'s'.repeat(length)}` } });
    const tooLarge = await padTo(limits.stringLength - 1);
    assert.equal(tooLarge.status, 400, tooLarge.text.slice(0, 500));
    assert.deepEqual(tooLarge.body.data, { limit: 'archiveRecordBytes', max: limits.archiveRecordBytes });
    const bytes = Number(/would take (\d+) bytes/.exec(tooLarge.body.message)![1]);
    const fits = limits.stringLength - 1 - (bytes - limits.archiveRecordBytes);
    const exact = await padTo(fits);
    assert.equal(exact.status, 200, exact.text.slice(0, 500));
    const oneMore = await padTo(fits + 1);
    assert.equal(oneMore.status, 400, oneMore.text.slice(0, 500));
    assert.match(oneMore.body.message, new RegExp(`would take ${limits.archiveRecordBytes + 1} bytes; at most ${limits.archiveRecordBytes}`));
  }

  async function importAndExportAgain(archivePath: string, original: Buffer, target: Target): Promise<void> {
    const imported = await cms(['import', archivePath, '--quiet'], target.env);
    assert.equal(imported.code, 0, imported.stderr);
    const again = join(work, 'again.tar.gz');
    const exported = await cms(['export', again, '--quiet'], target.env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(original.equals(await readFile(again)), 'the imported store exports the same bytes');
  }

  it('round-trips export, import, export byte for byte with every value at its limit, on SQLite and PostgreSQL', async () => {
    const widgets = Array.from({ length: limits.areaWidgets }, (_, n) => ({ type: '@cms/rich-text', content: `<p>Widget ${n} &amp; <a href="https://example.com/${n}" target="_blank">link</a></p>` }));
    const body = {
      title: 'T'.repeat(limits.stringLength),
      slug: 's'.repeat(slugMax),
      code: 'c'.repeat(codeMax),
      body: { metaType: 'area', items: widgets },
    };
    const big = await app.request('POST', '/api/v1/record', { body });
    assert.equal(big.status, 200, big.text.slice(0, 500));
    assert.equal(big.body.slug.length, slugMax);
    await fillRecord(big.body._id);
    // A user without a password (its login holds the empty hash) and one at the username bound.
    const noPassword = await app.request('POST', '/api/v1/@cms/user', { body: { title: 'No password', username: 'n'.repeat(1000), role: 'guest' } });
    assert.equal(noPassword.status, 200, noPassword.text);

    const archivePath = join(work, 'bounds.tar.gz');
    const exported = await cms(['export', archivePath, '--quiet'], sourceEnv());
    assert.equal(exported.code, 0, exported.stderr);
    const archive = await readFile(archivePath);
    const documents = (await entriesOf(archive))[0]!.data.toString().trim().split('\n');
    assert.ok(documents.some((line) => Buffer.byteLength(line) === limits.archiveRecordBytes), 'a record of exactly archiveRecordBytes');
    for (const target of [await sqliteTarget(), ...(postgresUrl ? [await postgresTarget()] : [])]) {
      try {
        await importAndExportAgain(archivePath, archive, target);
      } finally {
        await target.remove();
      }
    }
  });

  it('sanitizes the rich text of a hand-edited archive as a write does', async () => {
    const created = await app.request('POST', '/api/v1/record', { body: { title: 'Edited', body: '<p>Hello</p>' } });
    assert.equal(created.status, 200, created.text);
    const other = await app.request('POST', '/api/v1/record', { body: { title: 'Other' } });
    assert.equal(other.status, 200, other.text);
    const archivePath = join(work, 'edited.tar.gz');
    const exported = await cms(['export', archivePath, '--quiet'], sourceEnv());
    assert.equal(exported.code, 0, exported.stderr);
    const archive = await readFile(archivePath);
    const hostile = '<p>Hello</p><script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">click</a>';
    const lines = (await entriesOf(archive))[0]!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    const doc = lines.find((line) => line._id === created.body._id);
    doc.body.items[0].content = hostile;
    // An area no field describes (nor the API: it is checked in the store): rendering would show it all the same.
    lines.find((line) => line._id === other.body._id).extra = { note: { metaType: 'area', _id: 'x1', items: [{ _id: 'w1', metaType: 'widget', type: '@cms/rich-text', content: hostile }] } };
    const edited = Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const editedPath = join(work, 'hostile.tar.gz');
    await writeFile(editedPath, await withPart(archive, 'documents.jsonl', edited));

    const target = await sqliteTarget();
    try {
      const imported = await cms(['import', editedPath, '--quiet'], target.env);
      assert.equal(imported.code, 0, imported.stderr);
      const copy = await startTestApp(boundsConfig(), target.env);
      try {
        const rendered = await copy.request('GET', `/api/v1/record/${created.body._id}?renderAreas=true`);
        assert.equal(rendered.status, 200, rendered.text);
        assert.match(rendered.body.body._rendered, /<p>Hello<\/p>/);
        for (const bad of hostileParts) assert.ok(!rendered.text.includes(bad), `${bad} in ${rendered.text.slice(0, 2000)}`);
      } finally {
        await copy.close();
      }
      const storage = await createStorage(`sqlite:${join(target.dataDir, 'cms.sqlite')}`, { attachmentsGenerationKey });
      try {
        const [stored] = await storage.documents.find({ type: other.body.type, ids: [other.body._id], limit: 1 });
        const content = (stored as any).extra.note.items[0].content as string;
        assert.match(content, /^<p>Hello<\/p>/);
        for (const bad of hostileParts) assert.ok(!content.includes(bad), `${bad} in ${content}`);
      } finally {
        await storage.close();
      }
    } finally {
      await target.remove();
    }
  });

  it('refuses a hand-edited archive whose rich text is no string, or whose URL field holds a script link', async () => {
    const archive = await readFile(join(work, 'edited.tar.gz'));
    for (const [edit, message] of [
      [(doc: any) => (doc.body.items[0].content = 12), /holds what a write refuses: body: Rich text content must be a string of HTML/],
      [(doc: any) => (doc.site = 'javascript:alert(1)'), /holds what a write refuses: site: must be an http\(s\), mailto or tel URL/],
    ] as const) {
      const lines = (await entriesOf(archive))[0]!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
      edit(lines.find((line) => line.title === 'Edited'));
      const path = join(work, 'refused.tar.gz');
      await writeFile(path, await withPart(archive, 'documents.jsonl', Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))));
      const target = await sqliteTarget();
      try {
        const result = await cms(['import', path, '--quiet'], target.env);
        assert.equal(result.code, 1, result.stdout);
        assert.match(result.stderr, message);
      } finally {
        await target.remove();
      }
    }
  });
});
