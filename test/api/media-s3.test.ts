import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { StorageAdapter, StorageSession } from '../../src/storage/storage-adapter.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { countAttachments, fetchRaw, listFiles, makeImage, makePdf, md5, pathOf, sizeNames, upload, uploadsDir } from '../helpers/media.js';
import { startTestBucket, type TestBucket } from '../helpers/s3.js';
import { removeOrphanFiles } from '../../src/media/orphan-files.js';
import { unreadablePrefix } from '../../src/media/s3-file-storage.js';

/** The seven keys of an uploaded sized image (original and six sizes), or of one of its crops. */
function imageKeys(id: string, name: string, extension: string, crop = ''): string[] {
  const base = `attachments/${id}-${name}${crop}`;
  return [`${base}.${extension}`, ...sizeNames.map((size) => `${base}.${size}.${extension}`)].sort();
}

async function fetchBytes(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('S3 file storage, files linked at the bucket URL', () => {
  let bucket: TestBucket;
  let t: TestApp;
  before(async () => {
    bucket = await startTestBucket();
    t = await startTestApp(testConfig(), bucket.env({ publicUrl: true }));
  });
  after(async () => {
    await t.close();
    await bucket.close();
  });

  it('stores an image and its six sizes as objects in the bucket, and its URLs serve them', async () => {
    const jpeg = await makeImage('jpeg', 2000, 1000);
    const res = await upload(t, 'Wide Photo.jpeg', jpeg);
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    const keys = imageKeys(a._id, 'wide-photo', 'jpg');
    assert.deepEqual((await bucket.keys()).filter((key) => key.includes(a._id)), keys);
    assert.deepEqual(await listFiles(uploadsDir(t)), [], 'nothing is kept on local disk');
    assert.equal(a._url, `${bucket.bucketUrl}/attachments/${a._id}-wide-photo.jpg`);
    const original = await fetchBytes(a._url);
    assert.equal(original.status, 200);
    assert.equal(original.type, 'image/jpeg');
    assert.equal(md5(original.bytes), a.md5, 'the URL serves the stored original');
    for (const size of sizeNames) {
      const served = await fetchBytes(a._urls[size]);
      assert.equal(served.status, 200, size);
      assert.deepEqual(served.bytes, await bucket.bytes(`attachments/${a._id}-wide-photo.${size}.jpg`), size);
    }
    const max = await sharp((await fetchBytes(a._urls.max)).bytes).metadata();
    assert.ok(max.width! <= 1600 && max.width! < 2000, `max is scaled down (${max.width})`);
  });

  it('writes a crop and its six sizes to the bucket, and the /src redirect leads to a working URL', async () => {
    const png = (await upload(t, 'square.png', await makeImage('png', 64, 64))).body;
    const box = { top: 4, left: 8, width: 16, height: 12 };
    const cropped = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: png._id, crop: box } });
    assert.equal(cropped.status, 200, cropped.text);
    assert.equal(cropped.body, true);
    const all = await bucket.keys();
    assert.deepEqual(all.filter((key) => key.includes('.4.8.16.12')), imageKeys(png._id, 'square', 'png', '.4.8.16.12'));

    const piece = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Cropped', attachment: { _id: png._id, crop: box } } });
    assert.equal(piece.status, 200, piece.text);
    const redirect = await t.request('GET', `/api/v1/@cms/image/${piece.body._id}/src?size=one-half`, { key: null });
    assert.equal(redirect.status, 302, redirect.text);
    const location = redirect.headers.location as string;
    assert.equal(location, `${bucket.bucketUrl}/attachments/${png._id}-square.4.8.16.12.one-half.png`);
    const served = await fetchBytes(location);
    assert.equal(served.status, 200);
    assert.deepEqual(await sharp(served.bytes).metadata().then((m) => [m.width, m.height]), [16, 12]);
  });

  it('stores a file that is not an image as one object, served with its type', async () => {
    const pdf = makePdf('In a bucket');
    const res = await upload(t, 'report.pdf', pdf);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((await bucket.keys()).filter((key) => key.includes(res.body._id)), [`attachments/${res.body._id}-report.pdf`]);
    const served = await fetchBytes(res.body._url);
    assert.equal(served.status, 200);
    assert.equal(served.type, 'application/pdf');
    assert.deepEqual(served.bytes, pdf);
  });

  it('removes what a refused upload had no chance to commit: nothing is left in the bucket or the store', async () => {
    const before = await bucket.keys();
    const count = await countAttachments(t);
    const res = await upload(t, 'broken.png', Buffer.concat([(await makeImage('png', 32, 32)).subarray(0, 60), Buffer.alloc(200)]));
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(await bucket.keys(), before);
    assert.equal(await countAttachments(t), count);
  });
});

describe('S3 file storage, files served through the server', () => {
  let bucket: TestBucket;
  let t: TestApp;
  before(async () => {
    bucket = await startTestBucket();
    t = await startTestApp(testConfig(), bucket.env());
  });
  after(async () => {
    await t.close();
    await bucket.close();
  });

  it('links files under /uploads/ and streams them from the bucket, with validators', async () => {
    const png = await makeImage('png', 40, 30);
    const a = (await upload(t, 'served.png', png)).body;
    assert.equal(a._url, `http://cms.test/uploads/attachments/${a._id}-served.png`);
    assert.deepEqual((await bucket.keys()).filter((key) => key.includes(a._id)), imageKeys(a._id, 'served', 'png'));
    const served = await fetchRaw(t, pathOf(a._url));
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(Number(served.headers['content-length']), png.length);
    assert.deepEqual(served.bytes, png);
    const again = await fetchRaw(t, pathOf(a._url), { 'if-none-match': served.headers.etag as string });
    assert.equal(again.status, 304);
    for (const size of sizeNames) {
      const sized = await fetchRaw(t, pathOf(a._urls[size]));
      assert.equal(sized.status, 200, size);
      assert.deepEqual(sized.bytes, await bucket.bytes(`attachments/${a._id}-served.${size}.png`));
    }
    assert.equal((await fetchRaw(t, `/uploads/attachments/${a._id}-nosuch.png`)).status, 404);
  });

  it('refuses a file made unreadable, and serves it again once readable', async () => {
    const a = (await upload(t, 'notes.txt', 'private words')).body;
    const key = `attachments/${a._id}-notes.txt`;
    const files = bucket.driver('http://cms.test/uploads');
    await files.setReadable(key, false);
    const refused = await fetchRaw(t, pathOf(a._url));
    assert.equal(refused.status, 404);
    assert.equal(refused.json().name, 'notfound');
    assert.deepEqual((await bucket.keys()).filter((k) => k.includes(a._id)), [`${unreadablePrefix}${key}`]);
    assert.equal((await fetchRaw(t, `/uploads/${unreadablePrefix}${key}`)).status, 404, 'the unreadable copy is not served either');
    await files.setReadable(key, true);
    const served = await fetchRaw(t, pathOf(a._url));
    assert.equal(served.status, 200);
    assert.equal(served.bytes.toString(), 'private words');
  });

  it('stops serving the files of an image whose only document is archived, from the bucket too, and serves them again on restore', async () => {
    const a = (await upload(t, 'archived.png', await makeImage('png', 40, 30))).body;
    const urls = [a._url as string, ...Object.values(a._urls as Record<string, string>)];
    const created = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Archived', attachment: { _id: a._id } } });
    assert.equal(created.status, 200, created.text);
    const statuses = async () => Promise.all([...new Set(urls)].map(async (url) => (await fetchRaw(t, pathOf(url))).status));
    assert.deepEqual(new Set(await statuses()), new Set([200]));
    const url = `/api/v1/@cms/image/${created.body.cmsDocId}:en:draft`;
    assert.equal((await t.request('PATCH', url, { body: { archived: true } })).status, 200);
    assert.deepEqual(new Set(await statuses()), new Set([404]));
    const keys = (await bucket.keys()).filter((key) => key.includes(a._id));
    assert.equal(keys.length, 7);
    assert.ok(keys.every((key) => key.startsWith(unreadablePrefix)), 'every object moved under the private prefix');
    assert.equal((await t.request('PATCH', url, { body: { archived: false } })).status, 200);
    assert.deepEqual(new Set(await statuses()), new Set([200]));
    assert.deepEqual((await bucket.keys()).filter((key) => key.includes(a._id)), imageKeys(a._id, 'archived', 'png'));
  });

  it('crops an image read back from the bucket', async () => {
    const a = (await upload(t, 'to-crop.png', await makeImage('png', 50, 50))).body;
    const cropped = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: a._id, crop: { top: 0, left: 0, width: 10, height: 20 } } });
    assert.equal(cropped.status, 200, cropped.text);
    const served = await fetchRaw(t, `/uploads/attachments/${a._id}-to-crop.0.0.10.20.png`);
    assert.equal(served.status, 200);
    assert.deepEqual(await sharp(served.bytes).metadata().then((m) => [m.width, m.height]), [10, 20]);
  });
});

describe('the S3 driver', () => {
  let bucket: TestBucket;
  let work: string;
  before(async () => {
    bucket = await startTestBucket();
    work = await mkdtemp(join(tmpdir(), 'cms-s3-driver-'));
  });
  after(async () => {
    await bucket.close();
    await rm(work, { recursive: true, force: true });
  });

  async function localFile(name: string, content: string): Promise<string> {
    const path = join(work, name);
    await writeFile(path, content);
    return path;
  }

  it('moves a finished local file into the bucket, and removes it', async () => {
    const files = bucket.driver();
    const path = await localFile('a', 'bytes of a');
    await files.put('attachments/a.txt', path);
    assert.deepEqual(await listFiles(work), [], 'the local file is gone once stored');
    assert.deepEqual(await bucket.bytes('attachments/a.txt'), Buffer.from('bytes of a'));
    const info = await files.stat('attachments/a.txt');
    assert.equal(info?.size, 10);
    assert.ok(info!.modifiedAt instanceof Date);
    await files.remove('attachments/a.txt');
    assert.equal(await bucket.bytes('attachments/a.txt'), null);
    assert.equal(await files.stat('attachments/a.txt'), null);
    await files.remove('attachments/a.txt');
  });

  it('stores a file larger than one part through a multipart upload, byte for byte', async () => {
    const files = bucket.driver();
    // Random bytes: 8 MiB parts make three parts of this, the last one short.
    const content = randomBytes(17 * 1024 * 1024 + 123);
    const path = join(work, 'large');
    await writeFile(path, content);
    await files.put('attachments/large.bin', path);
    const stored = await bucket.bytes('attachments/large.bin');
    assert.equal(stored?.length, content.length);
    assert.equal(md5(stored!), md5(content));
    const chunks: Buffer[] = [];
    for await (const chunk of files.createReadStream('attachments/large.bin')) chunks.push(chunk as Buffer);
    assert.equal(md5(Buffer.concat(chunks)), md5(content), 'read back through the driver');
    await files.remove('attachments/large.bin');
  });

  it('fails a read of a missing file like fs does', async () => {
    const files = bucket.driver();
    await assert.rejects(
      async () => {
        for await (const _chunk of files.createReadStream('attachments/missing.txt'));
      },
      { code: 'ENOENT' },
    );
  });

  it('refuses keys that could leave the bucket\'s key space or collide with unreadable files', async () => {
    const files = bucket.driver();
    const hostile = ['../escape.txt', 'attachments/../../x.txt', '/attachments/a.txt', 'attachments/.hidden', `${unreadablePrefix}attachments/a.txt`, 'a\\b', 'a//b', 'attachments/a.txt?x=1', ''];
    for (const key of hostile) {
      const path = await localFile('hostile', 'x');
      await assert.rejects(files.put(key, path), /Invalid file storage key/, key);
      await assert.rejects(files.remove(key), /Invalid file storage key/, key);
      await assert.rejects(files.setReadable(key, false), /Invalid file storage key/, key);
      assert.throws(() => files.createReadStream(key), /Invalid file storage key/, key);
      assert.equal(await files.stat(key), null, key);
    }
    assert.deepEqual(await bucket.keys(), []);
  });

  it('makes a file unreadable at its URL and readable again; a missing file is no error', async () => {
    const files = bucket.driver();
    await files.put('attachments/b.txt', await localFile('b', 'bytes of b'));
    assert.equal((await fetchBytes(files.url('attachments/b.txt'))).status, 200);
    await files.setReadable('attachments/b.txt', false);
    assert.equal((await fetchBytes(files.url('attachments/b.txt'))).status, 404);
    assert.equal(await files.stat('attachments/b.txt'), null);
    await assert.rejects(async () => {
      for await (const _chunk of files.createReadStream('attachments/b.txt'));
    }, { code: 'ENOENT' });
    await files.setReadable('attachments/b.txt', false);
    await files.setReadable('attachments/b.txt', true);
    const back = await fetchBytes(files.url('attachments/b.txt'));
    assert.equal(back.status, 200);
    assert.equal(back.bytes.toString(), 'bytes of b');
    await files.setReadable('attachments/none.txt', false);
    await files.setReadable('attachments/none.txt', true);
    await files.remove('attachments/b.txt');
    assert.deepEqual(await bucket.keys(), []);
  });

  it('lists stored keys under a prefix, unreadable ones included, other objects not', async () => {
    const files = bucket.driver();
    await files.put('attachments/c.txt', await localFile('c', 'ccc'));
    await files.put('attachments/d.txt', await localFile('d', 'dddd'));
    await files.put('other/e.txt', await localFile('e', 'e'));
    await files.setReadable('attachments/d.txt', false);
    const listed = [];
    for await (const { key, info } of files.list('attachments/')) listed.push([key, info.size]);
    assert.deepEqual(listed.sort(), [['attachments/c.txt', 3], ['attachments/d.txt', 4]]);
    const everything = [];
    for await (const { key } of files.list('')) everything.push(key);
    assert.deepEqual(everything.sort(), ['attachments/c.txt', 'attachments/d.txt', 'other/e.txt']);
    await files.remove('attachments/d.txt');
    assert.ok(!(await bucket.keys()).some((key) => key.includes('d.txt')), 'remove takes the unreadable copy too');
  });

  it('lists every key when the listing takes several pages', async () => {
    // Pages of two keys: the listing takes several requests, across readable and unreadable keys.
    const files = bucket.driver(undefined, 2);
    const keys = Array.from({ length: 7 }, (_, i) => `pages/f${i}.txt`);
    for (const key of keys) await files.put(key, await localFile('f', key));
    await files.setReadable('pages/f3.txt', false);
    await files.setReadable('pages/f4.txt', false);
    await files.setReadable('pages/f5.txt', false);
    const listed = [];
    for await (const { key } of files.list('pages/')) listed.push(key);
    assert.deepEqual(listed.sort(), keys);
  });
});

describe('S3 file storage after a failure or a crash', () => {
  let bucket: TestBucket;
  let t: TestApp;
  let store: StorageAdapter;
  /** Makes the next attachment insert fail, as a crash at the moment of committing would. */
  let failNextInsert = false;
  /** What the bucket held at each insert: the record must come after every file. */
  const keysAtInsert: string[][] = [];
  before(async () => {
    bucket = await startTestBucket();
    t = await startTestApp(testConfig(), bucket.env({ publicUrl: true }), {
      wrapStorage(adapter) {
        store = adapter;
        // The record is written in a transaction (with its audit record): its session's insert is watched.
        const watched = (session: StorageSession): StorageSession => ({
          ...session,
          attachments: {
            ...session.attachments,
            insert: async (record, uploadedBy) => {
              keysAtInsert.push(await bucket.keys());
              if (failNextInsert) {
                failNextInsert = false;
                throw new Error('the store went away');
              }
              return session.attachments.insert(record, uploadedBy);
            },
          },
        });
        return { ...adapter, ...watched(adapter), transaction: withOptionalOptions((options, work) => adapter.transaction(options, (tx) => work(watched(tx)))) };
      },
    });
  });
  after(async () => {
    await t.close();
    await bucket.close();
  });

  it('writes every file before the record', async () => {
    const a = (await upload(t, 'ordered.png', await makeImage('png', 20, 20))).body;
    const atInsert = keysAtInsert.at(-1)!;
    for (const key of imageKeys(a._id, 'ordered', 'png')) assert.ok(atInsert.includes(key), `${key} was stored before the record`);
  });

  it('removes the files of an upload whose record could not be written', async () => {
    const before = await bucket.keys();
    const count = await countAttachments(t);
    failNextInsert = true;
    const res = await upload(t, 'lost.png', await makeImage('png', 20, 20));
    assert.equal(res.status, 500, res.text);
    assert.equal(res.body.name, 'error');
    assert.equal(keysAtInsert.at(-1)!.filter((key) => key.includes('-lost.')).length, 7, 'the files were in the bucket');
    assert.deepEqual(await bucket.keys(), before, 'and are gone again');
    assert.equal(await countAttachments(t), count);
  });

  it('reclaims the files a crash left without a record, and only those, once old enough', async () => {
    const kept = (await upload(t, 'kept.png', await makeImage('png', 20, 20))).body;
    const box = { top: 1, left: 2, width: 3, height: 4 };
    assert.equal((await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: kept._id, crop: box } })).status, 200);
    // Processes that died after placing their files and before their record: an upload's files
    // without a record, a crop's files that the record does not list.
    const files = bucket.driver();
    const dir = await mkdtemp(join(tmpdir(), 'cms-s3-crash-'));
    const orphanId = 'zz0000000000000000000000';
    const orphanKeys = [...imageKeys(orphanId, 'crashed', 'png'), ...imageKeys(kept._id, 'kept', 'png', '.5.5.5.5')];
    for (const key of orphanKeys) {
      const path = join(dir, 'file');
      await writeFile(path, 'orphan');
      await files.put(key, path);
    }
    await rm(dir, { recursive: true, force: true });
    const young = await removeOrphanFiles({ files, attachments: store.attachments, writtenBefore: new Date(Date.now() - 60_000) });
    assert.equal(young, 0, 'files younger than the grace period may belong to an upload in progress');
    const removed = await removeOrphanFiles({ files, attachments: store.attachments, writtenBefore: new Date(Date.now() + 60_000) });
    assert.equal(removed, 14);
    const left = await bucket.keys();
    assert.deepEqual(orphanKeys.filter((key) => left.includes(key)), [], 'the orphans are gone');
    for (const key of [...imageKeys(kept._id, 'kept', 'png'), ...imageKeys(kept._id, 'kept', 'png', '.1.2.3.4')]) {
      assert.ok(left.includes(key), `${key} is named by a record and stays`);
    }
    assert.equal((await fetchBytes(kept._url)).status, 200);
  });
});
