import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiTestsOnPostgres, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { fetchRaw, listFiles, makeImage, makePdf, pathOf, storedAttachment, uploaded, uploadsDir } from '../helpers/media.js';

/** The test configuration with `album` (draft and published, per locale) holding one attachment, and the given limits. */
function reclaimConfig(limits: Record<string, number> = {}): Record<string, unknown> {
  const config = testConfig();
  return {
    ...config,
    limits,
    modules: {
      ...(config.modules as Record<string, unknown>),
      album: { extend: '@cms/piece-type', options: { label: 'Album' }, fields: { add: { cover: { type: 'attachment' } } } },
    },
  };
}

/** Every URL of an attachment: `_url` and each of `_urls`. */
function urlsOf(attachment: Record<string, any>): string[] {
  return [...new Set([attachment._url as string, ...Object.values((attachment._urls ?? {}) as Record<string, string>)])];
}

/** The status of GET and HEAD for each URL, anonymous. */
async function statuses(t: TestApp, urls: readonly string[]): Promise<number[]> {
  const result: number[] = [];
  for (const url of urls) {
    result.push((await fetchRaw(t, pathOf(url))).status, (await fetchRaw(t, pathOf(url), {}, 'HEAD')).status);
  }
  return result;
}

const all = (count: number, status: number) => Array.from({ length: count * 2 }, () => status);

/** Every stored file of the app, served or not, as `<directory>/<key>`. */
async function storedFiles(t: TestApp): Promise<string[]> {
  const served = (await listFiles(join(uploadsDir(t), 'attachments'))).map((name) => `uploads/attachments/${name}`);
  const hidden = (await listFiles(join(t.dataDir, 'uploads-unreadable', 'attachments'))).map((name) => `uploads-unreadable/attachments/${name}`);
  return [...served, ...hidden].sort();
}

const filesOf = (files: readonly string[], id: string) => files.filter((file) => file.includes(`/${id}-`));

describe('attachment files of archived documents', () => {
  let t: TestApp;
  let image: Record<string, any>;
  let urls: string[];
  let pieceId = '';

  before(async () => {
    t = await startTestApp(reclaimConfig());
    image = await uploaded(t, 'sunset.png', await makeImage('png', 40, 30));
    urls = urlsOf(image);
    assert.equal(urls.length, 7, 'the original and six sizes');
  });
  after(() => t.close());

  it('serves a new upload that no document uses yet', async () => {
    assert.deepEqual(await statuses(t, urls), all(urls.length, 200));
  });

  it('stops serving every size, crops included, once the only document using it is archived', async () => {
    const crop = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: image._id, crop: { top: 0, left: 0, width: 20, height: 10 } } });
    assert.equal(crop.status, 200, crop.text);
    const cropUrls = urls.map((url) => url.replace(`${image._id}-sunset.`, `${image._id}-sunset.0.0.20.10.`));
    const created = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Sunset', attachment: { _id: image._id } } });
    assert.equal(created.status, 200, created.text);
    pieceId = created.body.cmsDocId;
    assert.deepEqual(await statuses(t, [...urls, ...cropUrls]), all(14, 200));

    const archived = await t.request('PATCH', `/api/v1/@cms/image/${pieceId}:en:draft`, { body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    assert.deepEqual(await statuses(t, [...urls, ...cropUrls]), all(14, 404));
    // The files are kept, out of the served directory.
    const files = filesOf(await storedFiles(t), image._id);
    assert.equal(files.length, 14);
    assert.ok(files.every((file) => file.startsWith('uploads-unreadable/')), files.join('\n'));
    // The record stays, and says who holds it.
    const shown = await t.request('GET', `/api/v1/@cms/image/${pieceId}:en:draft?archived=any`);
    assert.deepEqual(shown.body.attachment.docIds, []);
    // Images publish every edit: archiving made a previous version too, archived with the others.
    assert.deepEqual(shown.body.attachment.archivedDocIds, ['draft', 'previous', 'published'].map((mode) => `${pieceId}:en:${mode}`));
  });

  it('refuses to crop an attachment whose files are not served, with a 400', async () => {
    const res = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: image._id, crop: { top: 1, left: 1, width: 5, height: 5 } } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.name, 'invalid');
  });

  it('serves them again once the document is restored', async () => {
    const restored = await t.request('PATCH', `/api/v1/@cms/image/${pieceId}:en:draft`, { body: { archived: false } });
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual(await statuses(t, urls), all(urls.length, 200));
    const served = await fetchRaw(t, pathOf(image._urls.max));
    assert.equal(served.headers['content-type'], 'image/png');
    assert.ok(served.bytes.length > 0);
    assert.ok(filesOf(await storedFiles(t), image._id).every((file) => file.startsWith('uploads/')));
  });

  it('keeps serving while one live document uses it, whatever the other does', async () => {
    const other = await t.request('POST', '/api/v1/album', { body: { title: 'Trip', cover: { _id: image._id } } });
    assert.equal(other.status, 200, other.text);
    const albumId = other.body.cmsDocId;
    assert.equal((await t.request('PATCH', `/api/v1/@cms/image/${pieceId}:en:draft`, { body: { archived: true } })).status, 200);
    assert.deepEqual(await statuses(t, urls), all(urls.length, 200), 'the album is live');
    assert.equal((await t.request('PATCH', `/api/v1/album/${albumId}:en:draft`, { body: { archived: true } })).status, 200);
    assert.deepEqual(await statuses(t, urls), all(urls.length, 404), 'both are archived');
    assert.equal((await t.request('PATCH', `/api/v1/album/${albumId}:en:draft`, { body: { archived: false } })).status, 200);
    assert.deepEqual(await statuses(t, urls), all(urls.length, 200), 'the album is live again');
  });

  it('stops serving a file (not an image) once the documents using it are deleted', async () => {
    const pdf = await uploaded(t, 'terms.pdf', makePdf());
    const created = await t.request('POST', '/api/v1/@cms/file', { body: { title: 'Terms', attachment: { _id: pdf._id } } });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(await statuses(t, [pdf._url]), all(1, 200));
    assert.equal((await t.request('DELETE', `/api/v1/@cms/file/${created.body.cmsDocId}:en:draft`)).status, 200);
    assert.deepEqual(await statuses(t, [pdf._url]), all(1, 404));
    assert.ok(await storedAttachment(t, pdf._id), 'the record stays for the grace period');
  });
});

describe('reclaiming unused attachments', () => {
  let t: TestApp;
  // Short enough for a test; the sweep runs every second.
  const graceSeconds = 2;

  // While set, reading where an attachment's files stand fails: the files stay as they are, as after a crash.
  let failFileStates = false;

  before(async () => {
    const wrapStorage = (inner: StorageAdapter): StorageAdapter => ({
      ...inner,
      attachments: {
        ...inner.attachments,
        fileStates: async (ids) => {
          if (failFileStates) throw new Error('the process died');
          return inner.attachments.fileStates(ids);
        },
      },
    });
    t = await startTestApp(reclaimConfig({ attachmentGraceSeconds: graceSeconds, attachmentSweepSeconds: 1 }), {}, { wrapStorage });
  });
  after(() => t.close());

  /** Waits until `done` holds, checking every 200 ms, for at most 20 s. */
  async function eventually(done: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await done())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
      await sleep(200);
    }
  }

  it('removes an attachment no version holds after the grace period, record and files; keeps those a previous version, another locale or a draft holds', async () => {
    const png = await makeImage('png', 16, 16);
    const [gone, previousOnly, otherLocale, draftOnly] = [await uploaded(t, 'gone.png', png), await uploaded(t, 'previous.png', png), await uploaded(t, 'locale.png', png), await uploaded(t, 'draft.png', png)];
    const replacement = await uploaded(t, 'replacement.png', png);

    // An image piece publishes every edit: the version before the last one keeps the old attachment as previous.
    const image = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Kept', attachment: { _id: previousOnly._id } } });
    assert.equal(image.status, 200, image.text);
    const edited = await t.request('PATCH', `/api/v1/@cms/image/${image.body.cmsDocId}:en:draft`, { body: { attachment: { _id: replacement._id } } });
    assert.equal(edited.status, 200, edited.text);
    const previous = await t.request('GET', `/api/v1/@cms/image/${image.body.cmsDocId}:en:draft`);
    assert.equal(previous.body.attachment._id, replacement._id);

    // Localized to Spanish, then the English versions deleted: only the Spanish draft holds it.
    const album = await t.request('POST', '/api/v1/album', { body: { title: 'Local', cover: { _id: otherLocale._id } } });
    assert.equal(album.status, 200, album.text);
    const albumId = album.body.cmsDocId;
    assert.equal((await t.request('POST', `/api/v1/album/${albumId}:en:draft/localize`, { body: { toLocale: 'es' } })).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/album/${albumId}:en:draft`)).status, 200);

    // A draft never published.
    const draft = await t.request('POST', '/api/v1/album?cmsMode=draft', { body: { title: 'Draft', cover: { _id: draftOnly._id } } });
    assert.equal(draft.status, 200, draft.text);

    // Used, then deleted.
    const used = await t.request('POST', '/api/v1/album', { body: { title: 'Gone', cover: { _id: gone._id } } });
    assert.equal(used.status, 200, used.text);
    assert.equal((await t.request('DELETE', `/api/v1/album/${used.body.cmsDocId}:en:draft`)).status, 200);
    assert.deepEqual(await statuses(t, urlsOf(gone)), all(7, 404), 'unused after use: not served during the grace period');
    assert.equal(filesOf(await storedFiles(t), gone._id).length, 7);

    await eventually(async () => (await storedAttachment(t, gone._id)) === undefined, 'the unused attachment is removed');
    // Files go after the record, in the same sweep.
    await eventually(async () => filesOf(await storedFiles(t), gone._id).length === 0, 'its files are removed');

    for (const kept of [previousOnly, otherLocale, draftOnly, replacement]) {
      assert.ok(await storedAttachment(t, kept._id), `${kept.name} is still held`);
      assert.equal(filesOf(await storedFiles(t), kept._id).length, 7);
      assert.deepEqual(await statuses(t, urlsOf(kept)), all(7, 200), `${kept.name}: a live version holds it`);
    }
  });

  it('makes files match their record on the next sweep when moving them after the commit failed', async () => {
    const image = await uploaded(t, 'moved.png', await makeImage('png', 8, 8));
    const urls = urlsOf(image);
    const album = await t.request('POST', '/api/v1/album', { body: { title: 'Moved', cover: { _id: image._id } } });
    assert.equal(album.status, 200, album.text);
    const draft = `/api/v1/album/${album.body.cmsDocId}:en:draft`;
    for (const archived of [true, false]) {
      failFileStates = true;
      try {
        const res = await t.request('PATCH', draft, { body: { archived } });
        assert.equal(res.status, 200, 'the write committed: its answer does not depend on the files');
        assert.deepEqual(await statuses(t, urls), all(7, archived ? 200 : 404), 'the files are behind');
      } finally {
        failFileStates = false;
      }
      const expected = all(7, archived ? 404 : 200);
      await eventually(async () => (await statuses(t, urls)).join() === expected.join(), `the sweep makes the files ${archived ? 'unreadable' : 'readable'}`);
    }
  });

  it('removes an upload no document took up within the grace period', async () => {
    const unused = await uploaded(t, 'stray.png', await makeImage('png', 8, 8));
    assert.deepEqual(await statuses(t, [unused._url]), all(1, 200), 'served while new');
    await eventually(async () => (await storedAttachment(t, unused._id)) === undefined, 'the stray upload is removed');
    await eventually(async () => filesOf(await storedFiles(t), unused._id).length === 0, 'its files are removed');
    assert.deepEqual(await statuses(t, [unused._url]), all(1, 404));
  });

  it('removes files no record names once older than the grace period, served or not, and leaves newer ones and other files', async () => {
    const kept = await uploaded(t, 'kept.png', await makeImage('png', 8, 8));
    assert.equal((await t.request('POST', '/api/v1/album', { body: { title: 'Holder', cover: { _id: kept._id } } })).status, 200);
    const dir = join(uploadsDir(t), 'attachments');
    const hiddenDir = join(t.dataDir, 'uploads-unreadable', 'attachments');
    await mkdir(hiddenDir, { recursive: true });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const inAnHour = new Date(Date.now() + 3_600_000);
    const orphans = [join(dir, 'aaaaorphanaaaaaaaaaaaaaa-lost.png'), join(dir, 'aaaaorphanaaaaaaaaaaaaaa-lost.max.png'), join(hiddenDir, 'bbbborphanbbbbbbbbbbbbbb-hidden.pdf')];
    const recent = join(dir, 'ccccrecentcccccccccccccc-uploading.png');
    const notAttachment = join(dir, 'README');
    for (const path of [...orphans, recent, notAttachment]) await writeFile(path, 'x');
    for (const path of [...orphans, notAttachment]) await utimes(path, hourAgo, hourAgo);
    await utimes(recent, inAnHour, inAnHour);
    // The files of a held attachment are old too: their record keeps them.
    for (const name of filesOf(await storedFiles(t), kept._id)) await utimes(join(t.dataDir, name), hourAgo, hourAgo);

    await eventually(async () => {
      const files = await storedFiles(t);
      return !files.some((file) => file.includes('orphan'));
    }, 'the orphan files are removed');
    const files = await storedFiles(t);
    assert.ok(files.includes('uploads/attachments/ccccrecentcccccccccccccc-uploading.png'), 'a newer file may be an upload in progress');
    assert.ok(files.includes('uploads/attachments/README'), 'a file no attachment could have is not touched');
    assert.equal(filesOf(files, kept._id).length, 7);
  });
});

// Writers run side by side on PostgreSQL only; on SQLite a removal and a write never overlap.
describe('an unused attachment removed while a write takes it up (PostgreSQL)', { skip: !apiTestsOnPostgres && 'the API tests run on SQLite' }, () => {
  let t: TestApp;
  let storage: StorageAdapter;
  before(async () => {
    // No sweep of the app's own gets in between: the test removes the attachment itself.
    t = await startTestApp(reclaimConfig({ attachmentGraceSeconds: 1, attachmentSweepSeconds: 86_400 }), {}, {
      wrapStorage: (adapter) => (storage = adapter),
    });
  });
  after(() => t.close());

  it('refuses the write when the removal held the attachment first, and keeps no document holding it', async () => {
    const stray = await uploaded(t, 'contested.png', await makeImage('png', 8, 8));
    // The sweep removes what was unused since before now minus the grace period: the test asks
    // as a sweep would a grace period (1 s) later, without waiting for it.
    const sweptAt = Date.now() + 1_100;
    let locked!: () => void;
    let release!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    // As the sweep does: the attachment's lock, then its removal.
    const removal = storage.transaction({ lockAttachments: [stray._id] }, async (tx) => {
      locked();
      await released;
      return tx.attachments.removeUnused(stray._id, sweptAt - 1_000);
    });
    await lockTaken;
    const write = t.request('POST', '/api/v1/album', { body: { title: 'Contested', cover: { _id: stray._id } } });
    // The write converts its input (the record is still there), then waits for the lock.
    await sleep(300);
    release();
    const removed = await removal;
    assert.equal(removed, true);
    const answer = await write;
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.match(answer.body.message, /removed meanwhile/);
    assert.equal((await t.request('GET', '/api/v1/album?title=Contested')).body.results.length, 0);
    assert.equal(await storedAttachment(t, stray._id), undefined);
  });
});
