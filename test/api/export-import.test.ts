import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, listFiles, makeImage, makePdf, pathOf, uploaded } from '../helpers/media.js';
import { postgresUrl } from '../helpers/postgres.js';
import { entriesOf, packed, postgresTarget, sqliteTarget, withPart, type Target } from '../helpers/archive.js';
import { runCli } from '../helpers/cli-store.js';
import { openEventStream } from '../helpers/event-stream.js';
import { startTestBucket } from '../helpers/s3.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/** The fixture types, plus `gallery` whose `hero` takes any file (a PDF here). */
function transferConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  return {
    ...config,
    modules: { ...modules, gallery: { extend: '@cms/piece-type', options: { label: 'Gallery' }, fields: { add: { hero: { type: 'attachment' } } } } },
  };
}

describe('cms export and cms import', () => {
  let work: string;
  let configPath: string;
  let source: TestApp;
  let archive: Buffer;
  const answers = new Map<string, { status: number; body: unknown }>();
  const fileUrls: string[] = [];
  let hiddenFiles: string[] = [];
  let shareKey = '';

  const cms = (args: string[], env: Record<string, string>) => runCli(args, { env: { CMS_CONFIG: configPath, CMS_LOG_LEVEL: 'silent', ...env } });

  /** The answers the tests compare between stores: lists, filters, searches, single documents, anonymous and not. */
  const urls = () => [...answers.keys()];

  async function answersOf(t: TestApp): Promise<Map<string, { status: number; body: unknown }>> {
    const result = new Map<string, { status: number; body: unknown }>();
    for (const url of urls()) {
      const [path, who] = url.split(' as ') as [string, string | undefined];
      const response = await t.request('GET', path, { key: who === 'anonymous' ? null : 'admin' });
      result.set(url, { status: response.status, body: response.body });
    }
    return result;
  }

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'cms-transfer-'));
    configPath = join(work, 'cms.config.json');
    await writeFile(configPath, JSON.stringify(transferConfig()));
    // A scheduler that looks often: a schedule due now fails within the setup.
    source = await startTestApp(transferConfig(), { CMS_LIMIT_SCHEDULER_INTERVAL: '100' });
    const ok = async (method: 'POST' | 'PATCH', url: string, body: unknown = {}) => {
      const response = await source.request(method, url, { body });
      assert.equal(response.status, 200, `${method} ${url}: ${response.text}`);
      return response.body;
    };
    // Users that can log in.
    const ada = await ok('POST', '/api/v1/@cms/user', { title: 'Ada', username: 'ada', password: 'ada-password-1', role: 'editor', email: 'ada@example.com' });
    await ok('POST', '/api/v1/@cms/user', { title: 'Bob', username: 'bob', password: 'bob-password-1', role: 'contributor' });
    // Articles in two locales, drafts and published (with a previous version), relationships, an area, one archived.
    const first = await ok('POST', '/api/v1/article', { title: 'Harbour news', category: 'tech', tags: ['news'], priority: 3, _author: [ada._id], body: '<p>The lighthouse keeper</p>' });
    await ok('POST', `/api/v1/article/${first._id}/publish`);
    await ok('PATCH', `/api/v1/article/${first._id}`, { title: 'Harbour news, updated' });
    await ok('POST', `/api/v1/article/${first._id}/publish`);
    const second = await ok('POST', '/api/v1/article', { title: 'Second story', category: 'life', _related: [first.cmsDocId], color: 'red' });
    await ok('POST', `/api/v1/article/${second._id}/publish`);
    // Scheduled publishing: the drafts show their schedules, and the copy's index finds them.
    await ok('POST', `/api/v1/article/${second.cmsDocId}:en:draft/schedule`, { unpublishAt: '2040-01-01T00:00:00.000Z' });
    const noticias = await ok('POST', '/api/v1/article?cmsLocale=es&cmsMode=draft', { title: 'Noticias del puerto', category: 'tech' });
    // A pending publish that a contributor's change marks unreviewed, and an unpublish of what was never published, which fails.
    await ok('POST', `/api/v1/article/${second.cmsDocId}:en:draft/schedule`, { publishAt: '2039-01-01T00:00:00.000Z' });
    const edited = await source.request('PATCH', `/api/v1/article/${second.cmsDocId}:en:draft`, { key: 'contributor', body: { title: 'Second story, edited' } });
    assert.equal(edited.status, 200, edited.text);
    await ok('POST', `/api/v1/article/${noticias._id}/schedule`, { unpublishAt: new Date().toISOString() });
    for (let failed = false; !failed; ) {
      failed = (await source.request('GET', `/api/v1/article/${noticias._id}`)).body.scheduledUnpublish?.status === 'failed';
      if (!failed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A preview link: the store keeps its key's digest only.
    const firstDraft = `${first.cmsDocId}:en:draft`;
    shareKey = (await ok('POST', `/api/v1/article/${firstDraft}/share`, { share: true, expiresIn: 3600 })).cmsShareKey;
    const history = (await source.request('GET', `/api/v1/article/${firstDraft}/history`)).body.results as { _id: string }[];
    assert.ok(history.length >= 2, 'the draft has history');
    const gone = await ok('POST', '/api/v1/article', { title: 'Old story' });
    await ok('PATCH', `/api/v1/article/${gone._id}`, { archived: true });
    await ok('POST', '/api/v1/note', { title: 'A note', text: 'private' });
    // Images with sizes and a crop, a PDF, and an archived document's image, whose files become unreadable.
    const photo = await uploaded(source, 'sunset.png', await makeImage('png', 64, 48));
    await ok('POST', '/api/v1/@cms/attachment/crop', { _id: photo._id, crop: { top: 0, left: 0, width: 20, height: 10 } });
    await ok('POST', '/api/v1/@cms/image', { title: 'Sunset', attachment: { _id: photo._id } });
    const old = await uploaded(source, 'old.jpg', await makeImage('jpeg', 32, 32));
    const oldImage = await ok('POST', '/api/v1/@cms/image', { title: 'Old photo', attachment: { _id: old._id } });
    await ok('PATCH', `/api/v1/@cms/image/${oldImage.cmsDocId}:en:draft`, { archived: true });
    const pdf = await uploaded(source, 'Report.pdf', makePdf('Quarterly'));
    await ok('POST', '/api/v1/gallery', { title: 'Reports', hero: { _id: pdf._id } });
    hiddenFiles = await listFiles(join(source.dataDir, 'uploads-unreadable'));
    assert.ok(hiddenFiles.length >= 7, 'the archived image has unreadable files');

    for (const url of [
      '/api/v1/article',
      '/api/v1/article?cmsMode=draft',
      '/api/v1/article?cmsLocale=es&cmsMode=draft',
      '/api/v1/article?archived=any&cmsMode=draft',
      '/api/v1/article?category=tech',
      '/api/v1/article?search=lighthouse',
      '/api/v1/article?autocomplete=harb',
      '/api/v1/article as anonymous',
      '/api/v1/article?search=lighthouse as anonymous',
      `/api/v1/article/${first.cmsDocId}:en:draft`,
      `/api/v1/article/${second.cmsDocId}:en:published as anonymous`,
      '/api/v1/note',
      '/api/v1/@cms/image?archived=any&cmsMode=draft',
      '/api/v1/@cms/user',
      '/api/v1/gallery',
      '/api/v1/article?cmsMode=draft&scheduled=pending',
      '/api/v1/article?cmsLocale=es&cmsMode=draft&scheduled=failed',
      `/api/v1/article/${firstDraft}/history`,
      `/api/v1/article/${firstDraft}/history/${history.at(-1)!._id}`,
      `/api/v1/article/${firstDraft}/share`,
      `/api/v1/article/${firstDraft}?cmsShareId=${firstDraft}&cmsShareKey=${shareKey} as anonymous`,
      '/api/v1/@cms/audit?perPage=100',
    ]) {
      answers.set(url, { status: 0, body: null });
    }
    for (const [url, answer] of await answersOf(source)) answers.set(url, answer);
    const count = (url: string) => (answers.get(url)!.body as { results: unknown[] }).results.length;
    assert.deepEqual(
      ['/api/v1/article?cmsMode=draft', '/api/v1/article?cmsLocale=es&cmsMode=draft', '/api/v1/article?archived=any&cmsMode=draft', '/api/v1/article?search=lighthouse', '/api/v1/article?category=tech', '/api/v1/@cms/image?archived=any&cmsMode=draft', '/api/v1/@cms/user', '/api/v1/article?cmsMode=draft&scheduled=pending'].map(count),
      [2, 1, 3, 1, 1, 2, 2, 1],
      'the answers compared hold documents',
    );
    const images = answers.get('/api/v1/@cms/image?archived=any&cmsMode=draft')!.body as { results: { attachment: { _urls: Record<string, string> } }[] };
    for (const image of images.results) fileUrls.push(...Object.values(image.attachment._urls));
    const gallery = answers.get('/api/v1/gallery')!.body as { results: { hero: { _url: string } }[] };
    fileUrls.push(gallery.results[0]!.hero._url);

    const exported = await cms(['export', join(work, 'source.tar.gz'), '--quiet'], { CMS_DATA_DIR: source.dataDir, CMS_DATABASE_URL: source.databaseUrl });
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stderr, '', 'nothing on stderr with --quiet');
    assert.match(exported.stdout, /^exported 2\d document versions, 2 users, 3 attachments, \d+ files \(\d+ bytes\)\n$/);
    archive = await readFile(join(work, 'source.tar.gz'));
  });

  after(async () => {
    await source?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('writes a gzipped tar of the records, every file and a manifest, the same bytes each time', async () => {
    const entries = await entriesOf(archive);
    const names = entries.map((entry) => entry.name);
    assert.deepEqual(names.slice(0, 7), ['documents.jsonl', 'users.jsonl', 'attachments.jsonl', 'audit.jsonl', 'history.jsonl', 'share-links.jsonl', 'schedules.jsonl']);
    const lines = (name: string) => entries.find((entry) => entry.name === name)!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    assert.ok(lines('history.jsonl').length >= 4);
    // The link's digest, never its key.
    const [link] = lines('share-links.jsonl');
    assert.equal(link.digest, createHash('sha256').update(shareKey).digest('base64url'));
    assert.ok(!archive.includes(shareKey) && !entries.some((entry) => entry.data.includes(shareKey)));
    // Schedules as kept: who (an API key, by its id), the contributor's unreviewed change, the failed one.
    const schedules = lines('schedules.jsonl');
    assert.deepEqual(schedules.map((row) => [row.action, row.status, row.by.kind, row.unreviewedChange?.role ?? null]).sort(), [
      ['publish', 'pending', 'apiKey', 'contributor'],
      ['unpublish', 'failed', 'apiKey', null],
      ['unpublish', 'pending', 'apiKey', null],
    ]);
    assert.ok(schedules.every((row) => typeof row.by.keyId === 'string'));
    // The audit trail, oldest first, and no secret in it.
    const auditText = entries[3]!.data.toString();
    const trail = auditText.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(trail.slice(0, 2).map((record) => [record.action, record.type]), [['document.insert', '@cms/user'], ['document.insert', '@cms/user']]);
    assert.ok(trail.some((record) => record.action === 'document.archive' && record.type === 'article'));
    assert.ok(!auditText.includes('ada-password-1') && !auditText.includes('passwordHash'));
    assert.equal(names.at(-1), 'manifest.json');
    const files = names.filter((name) => name.startsWith('files/'));
    assert.deepEqual(files, [...files].sort());
    // The readable files and the unreadable ones moved aside, each once.
    for (const hidden of hiddenFiles) assert.ok(files.includes(`files/${hidden}`), hidden);
    const manifest = JSON.parse(entries.at(-1)!.data.toString());
    assert.equal(manifest.format, 'cms-archive');
    assert.equal(manifest.version, 2);
    assert.equal(manifest.files.count, files.length);
    const documents = entries[0]!.data.toString();
    assert.equal(manifest.parts[0].sha256, createHash('sha256').update(documents).digest('hex'));
    const users = entries[1]!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(users.map((user) => user.username).sort(), ['ada', 'bob']);
    assert.match(users[0].passwordHash, /^\$?scrypt|\S{20,}/);
    assert.ok(documents.includes('"cmsMode":"previous"') && documents.includes('"archived":true') && documents.includes(':es:draft'));
    // Who uploaded each attachment goes along (the re-export of an import being the same bytes, it comes back too).
    const attachments = entries[2]!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    const uploader = `key:${createHash('sha256').update(keys.admin).digest('hex')}`;
    assert.deepEqual(attachments.map((attachment) => attachment.uploadedBy), [uploader, uploader, uploader]);
    const again = await cms(['export', join(work, 'again.tar.gz'), '--quiet'], { CMS_DATA_DIR: source.dataDir, CMS_DATABASE_URL: source.databaseUrl });
    assert.equal(again.code, 0, again.stderr);
    assert.ok(archive.equals(await readFile(join(work, 'again.tar.gz'))), 'the same store exports to the same bytes');
  });

  async function importAndCompare(target: Target): Promise<void> {
    const imported = await cms(['import', join(work, 'source.tar.gz')], target.env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^imported 2\d document versions, 2 users, 3 attachments/);
    // Progress went to stderr as plain lines: it is not a terminal.
    assert.match(imported.stderr, /^documents: \d+\/\d+ in [\d.]+ s$/m);
    const reexported = await cms(['export', join(work, 'reexported.tar.gz'), '-q'], target.env);
    assert.equal(reexported.code, 0, reexported.stderr);
    assert.ok(archive.equals(await readFile(join(work, 'reexported.tar.gz'))), 'the imported store exports the same bytes');

    const copy = await startTestApp(transferConfig(), target.env);
    try {
      for (const [url, answer] of await answersOf(copy)) assert.deepEqual(answer, answers.get(url), url);
      for (const url of fileUrls) {
        const [before, after] = [await fetchRaw(source, pathOf(url)), await fetchRaw(copy, pathOf(url))];
        assert.equal(after.status, before.status, url);
        assert.ok(after.bytes.equals(before.bytes), `${url} serves the same bytes`);
      }
      assert.ok(fileUrls.some((url) => url.includes('old')), 'the unreadable image is among the files');
      assert.deepEqual(await listFiles(join(target.dataDir, 'uploads-unreadable')), hiddenFiles);
      for (const hidden of hiddenFiles) {
        const [was, is] = [await readFile(join(source.dataDir, 'uploads-unreadable', hidden)), await readFile(join(target.dataDir, 'uploads-unreadable', hidden))];
        assert.ok(is.equals(was), hidden);
      }
      const login = await copy.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'ada', password: 'ada-password-1' } });
      assert.equal(login.status, 200, login.text);
      assert.equal(typeof login.body.token, 'string');
      const wrong = await copy.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'bob', password: 'not-his-password' } });
      assert.equal(wrong.status, 400);
      // The change log tells of every version imported, once: a stream that read the store before finds them.
      const versions = Number(/^imported (\d+) document versions/.exec(imported.stdout)![1]);
      const stream = await openEventStream(await copy.listen(), '/api/v1/@cms/events?lastEventId=0', { authorization: `ApiKey ${keys.admin}` });
      try {
        await stream.next(() => stream.events.length >= versions);
        assert.deepEqual(new Set(stream.events.map((event) => event.event)), new Set(['insert']));
        assert.equal(new Set(stream.events.map((event) => event.data._id)).size, versions);
      } finally {
        stream.close();
        await stream.ended;
      }
    } finally {
      await copy.close();
    }
  }

  it('imports into an empty SQLite store that answers the same and exports the same bytes', async () => {
    const target = await sqliteTarget();
    try {
      await importAndCompare(target);
      // Not into a store that holds anything: nothing changes (the audit trail included).
      await cms(['export', join(work, 'before.tar.gz'), '-q'], target.env);
      const refused = await cms(['import', join(work, 'source.tar.gz')], target.env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^cms import: the store is not empty \(it holds documents and users and attachments\)/);
      await cms(['export', join(work, 'after.tar.gz'), '-q'], target.env);
      assert.ok((await readFile(join(work, 'before.tar.gz'))).equals(await readFile(join(work, 'after.tar.gz'))), 'the refused import changed nothing');
    } finally {
      await target.remove();
    }
  });

  it('imports into an empty PostgreSQL schema that answers the same and exports the same bytes', { skip: postgresUrl ? false : 'CMS_TEST_POSTGRES_URL is not set' }, async () => {
    const target = await postgresTarget();
    try {
      await importAndCompare(target);
      // The import analyzed what it wrote (ANALYZE, not autovacuum's): the planner knows the tables' sizes.
      const [documents] = await target.database!.query<{ analyzed: boolean; reltuples: number }>(
        `SELECT s.last_analyze IS NOT NULL AS analyzed, c.reltuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
          WHERE s.schemaname = $1 AND s.relname = 'documents'`,
        [target.database!.schema],
      );
      assert.deepEqual({ analyzed: documents?.analyzed, counted: (documents?.reltuples ?? 0) > 0 }, { analyzed: true, counted: true });
    } finally {
      await target.remove();
    }
  });

  it('imports into a store whose files are in a bucket, unreadable ones aside, and exports the same bytes from it', async () => {
    const bucket = await startTestBucket();
    const target = await sqliteTarget();
    try {
      const env = { ...target.env, ...bucket.env() };
      const imported = await cms(['import', join(work, 'source.tar.gz'), '--quiet'], env);
      assert.equal(imported.code, 0, imported.stderr);
      const keys = await bucket.keys();
      for (const hidden of hiddenFiles) assert.ok(keys.includes(`_unreadable/${hidden}`), hidden);
      assert.equal(keys.length, (await entriesOf(archive)).filter((entry) => entry.name.startsWith('files/')).length);
      assert.deepEqual(await listFiles(join(target.dataDir, 'uploads')), [], 'no file stays behind in the work directory');
      const reexported = await cms(['export', join(work, 'from-bucket.tar.gz'), '--quiet'], env);
      assert.equal(reexported.code, 0, reexported.stderr);
      assert.ok(archive.equals(await readFile(join(work, 'from-bucket.tar.gz'))), 'the imported store exports the same bytes');
    } finally {
      await target.remove();
      await bucket.close();
    }
  });

  /** Imports `damaged` into a new store: it must fail with `message` and leave the store and the file store empty. */
  async function assertRefused(damaged: Buffer, message: RegExp): Promise<void> {
    const target = await sqliteTarget();
    try {
      const path = join(work, 'damaged.tar.gz');
      await writeFile(path, damaged);
      const result = await cms(['import', path, '--quiet'], target.env);
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
      const storage = await createStorage(`sqlite:${join(target.dataDir, 'cms.sqlite')}`, { attachmentsGenerationKey });
      try {
        await storage.migrate();
        assert.deepEqual(await storage.documents.versionsAfter(null, null, 1), []);
        assert.deepEqual(await storage.logins.loginsAfter(null, 1), []);
        assert.deepEqual(await storage.attachments.attachmentsAfter(null, 1), []);
      } finally {
        await storage.close();
      }
      const left = [...(await listFiles(join(target.dataDir, 'uploads'))), ...(await listFiles(join(target.dataDir, 'uploads-unreadable')))];
      assert.deepEqual(left, []);
    } finally {
      await target.remove();
    }
  }

  it('imports an archive of version 1 (no audit trail, history, links or schedules): the drafts show their schedules again', async () => {
    const added = ['audit.jsonl', 'history.jsonl', 'share-links.jsonl', 'schedules.jsonl'];
    const entries = (await entriesOf(archive)).filter((entry) => !added.includes(entry.name));
    const manifestEntry = entries.at(-1)!;
    const manifest = JSON.parse(manifestEntry.data.toString());
    manifest.version = 1;
    manifest.parts = manifest.parts.filter((part: { name: string }) => !added.includes(part.name));
    manifestEntry.data = Buffer.from(JSON.stringify(manifest));
    const path = join(work, 'version-1.tar.gz');
    await writeFile(path, await packed(entries));
    const target = await sqliteTarget();
    try {
      const imported = await cms(['import', path], target.env);
      assert.equal(imported.code, 0, imported.stderr);
      const copy = await startTestApp(transferConfig(), target.env);
      try {
        const trail = await copy.request('GET', '/api/v1/@cms/audit');
        assert.equal(trail.status, 200, trail.text);
        assert.deepEqual(trail.body.results, [], 'nothing is added to the trail');
        for (const url of ['/api/v1/article?cmsMode=draft&scheduled=pending', '/api/v1/article?cmsLocale=es&cmsMode=draft&scheduled=failed']) {
          assert.deepEqual((await copy.request('GET', url)).body, answers.get(url)!.body, url);
        }
      } finally {
        await copy.close();
      }
    } finally {
      await target.remove();
    }
  });

  it('refuses a history entry, preview link or schedule that is malformed or names a draft the archive lacks', async () => {
    const lines = async (name: string) => (await entriesOf(archive)).find((entry) => entry.name === name)!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    const part = (records: unknown[]) => Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const [schedule] = await lines('schedules.jsonl');
    const elsewhere = { ...schedule, docId: 'nosuchdoc', versionId: `nosuchdoc:${schedule.locale}:draft` };
    await assertRefused(await withPart(archive, 'schedules.jsonl', part([elsewhere])), /^cms import: line 1 of schedules\.jsonl: names the draft "nosuchdoc:\w+:draft" of type "article", which the archive does not hold/);
    const [link] = await lines('share-links.jsonl');
    await assertRefused(await withPart(archive, 'share-links.jsonl', part([{ ...link, digest: 'the-key-in-clear' }])), /^cms import: line 1 of share-links\.jsonl: \/digest: /);
    const history = await lines('history.jsonl');
    await assertRefused(await withPart(archive, 'history.jsonl', part([{ ...history[0], cmsMode: 'draft', versionId: 'x:en:draft' }])), /^cms import: line 1 of history\.jsonl: the versionId "x:en:draft" does not match/);
  });

  it('refuses an archive whose records do not match their checksum', async () => {
    const entries = await entriesOf(archive);
    const documents = entries[0]!;
    documents.data = Buffer.from(documents.data.toString().replace('Second story', 'Second stork'));
    await assertRefused(await packed(entries), /^cms import: documents\.jsonl does not match its SHA-256 in manifest\.json/);
  });

  it('refuses an archive whose file does not match the checksums', async () => {
    const entries = await entriesOf(archive);
    const file = entries.find((entry) => entry.name.endsWith('.pdf'))!;
    file.data = Buffer.from(file.data.toString('latin1').replace('Quarterly', 'Yearly!!!'), 'latin1');
    await assertRefused(await packed(entries), /^cms import: the files do not match their SHA-256/);
  });

  it('refuses a path trick before writing anything', async () => {
    const entries = await entriesOf(archive);
    const at = entries.findIndex((entry) => entry.name.startsWith('files/'));
    entries.splice(at, 0, { name: 'files/attachments/../../../escaped.txt', data: Buffer.from('gotcha') });
    await assertRefused(await packed(entries), /^cms import: the entry "files\/attachments\/\.\.\/\.\.\/\.\.\/escaped\.txt" is not an attachment file's name/);
    const absolute = (await entriesOf(archive)).map((entry) => (entry.name === 'users.jsonl' ? { name: '/etc/users.jsonl', data: entry.data } : entry));
    await assertRefused(await packed(absolute), /^cms import: unexpected entry "\/etc\/users\.jsonl"/);
  });

  it('refuses a record that is not JSON, or not of its shape, even with a matching checksum', async () => {
    await assertRefused(await withPart(archive, 'users.jsonl', Buffer.from('{"userId": "u1", "username"\n')), /^cms import: line 1 of users\.jsonl: not JSON/);
    const user = { userId: 'u1', username: 'eve', email: null, passwordHash: 12 };
    await assertRefused(await withPart(archive, 'users.jsonl', Buffer.from(`${JSON.stringify(user)}\n`)), /^cms import: line 1 of users\.jsonl: \/passwordHash: Expected string/);
  });

  it('refuses another format version, and a document of a type the configuration lacks', async () => {
    const entries = await entriesOf(archive);
    const manifestEntry = entries.at(-1)!;
    manifestEntry.data = Buffer.from(JSON.stringify({ ...JSON.parse(manifestEntry.data.toString()), version: 3 }));
    await assertRefused(await packed(entries), /^cms import: the archive has format version 3; this cms reads versions 1 and 2\n/);
    const documents = (await entriesOf(archive))[0]!.data.toString().replaceAll('"type":"note"', '"type":"memo"');
    await assertRefused(await withPart(archive, 'documents.jsonl', Buffer.from(documents)), /the type "memo" is not in this configuration/);
  });

  it('refuses a truncated archive, and a file that is no archive', async () => {
    await assertRefused(archive.subarray(0, Math.floor(archive.length / 2)), /^cms import: the archive is damaged \(not a complete gzipped tar\)/);
    await assertRefused(Buffer.from('just some text\n'), /^cms import: the archive is damaged/);
  });

  it('rolls back the records and removes the files placed when the store refuses a record', async () => {
    // Two drafts with one slug pass every check of the archive but not the store's unique slug.
    const entries = await entriesOf(archive);
    const lines = entries[0]!.data.toString().trim().split('\n').map((line) => JSON.parse(line));
    const drafts = lines.filter((doc) => doc.type === 'article' && doc.cmsLocale === 'en:draft');
    drafts[1].slug = drafts[0].slug;
    const data = Buffer.from(lines.map((doc) => `${JSON.stringify(doc)}\n`).join(''));
    await assertRefused(await withPart(archive, 'documents.jsonl', data), /^cms import: .*slug/i);
  });

  it('answers usage errors with exit code 2', async () => {
    const none = await cms(['export'], {});
    assert.equal(none.code, 2);
    assert.match(none.stderr, /expected one archive path[\s\S]*Usage: cms export <archive> \[--quiet\]/);
    const unknown = await cms(['import', 'a.tar.gz', '--force'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--force/);
  });
});
