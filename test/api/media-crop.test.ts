import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { keys, startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import {
  countAttachments,
  fetchRaw,
  listFiles,
  makeHalvesPng,
  makeImage,
  makePdf,
  makeRotatedJpeg,
  sizeNames,
  storedAttachment,
  upload,
  uploaded,
  uploadsDir,
} from '../helpers/media.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';

const cropUrl = '/api/v1/@cms/attachment/crop';

async function pixel(path: string, left: number, top: number): Promise<[number, number, number]> {
  const { data } = await sharp(path).extract({ left, top, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
  return [data[0]!, data[1]!, data[2]!];
}

describe('attachment crop', () => {
  let t: TestApp;
  let image: Record<string, any>;
  before(async () => {
    t = await startTestApp();
    image = await uploaded(t, 'halves.png', await makeHalvesPng(400, 300));
  });
  after(() => t.close());

  const crop = (body: unknown, key?: 'contributor' | 'guest' | null) => t.request('POST', cropUrl, { body, key });

  it('writes the cropped file and its sizes named top.left.width.height, and records the crop', async () => {
    const box = { top: 10, left: 250, width: 100, height: 50 };
    const res = await crop({ _id: image._id, crop: box });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body, true);
    const base = join(uploadsDir(t), 'attachments', `${image._id}-halves.10.250.100.50`);
    const cropped = await sharp(`${base}.png`).metadata();
    assert.deepEqual([cropped.width, cropped.height, cropped.format], [100, 50, 'png']);
    // left 250 lies in the blue half: the order of the name and of the box is top, then left.
    assert.deepEqual(await pixel(`${base}.png`, 50, 25), [0, 0, 255]);
    for (const size of sizeNames) {
      const metadata = await sharp(`${base}.${size}.png`).metadata();
      assert.deepEqual([metadata.width, metadata.height], [100, 50], `${size}: fits every box, never enlarged`);
    }
    const served = await fetchRaw(t, `/uploads/attachments/${image._id}-halves.10.250.100.50.one-half.png`);
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    const record = (await storedAttachment(t, image._id))!;
    assert.deepEqual(record.crops, [box]);
    assert.ok(record.updatedAt >= record.createdAt);
  });

  it('answers the attachment annotated with the crop when asked to (annotate: true)', async () => {
    const box = { top: 20, left: 40, width: 120, height: 60 };
    const res = await crop({ _id: image._id, crop: box, annotate: true });
    assert.equal(res.status, 200, res.text);
    const base = `http://cms.test/uploads/attachments/${image._id}-halves`;
    assert.equal(res.body._id, image._id);
    assert.deepEqual(res.body._crop, box);
    assert.deepEqual(res.body.crop, box);
    assert.equal(res.body._url, `${base}.20.40.120.60.png`);
    assert.equal(res.body._urls['one-half'], `${base}.20.40.120.60.one-half.png`);
    assert.equal(res.body._urls.uncropped['one-half'], `${base}.one-half.png`);
    assert.equal(res.body._urls.uncropped.original, `${base}.png`);
    assert.ok(res.body.crops.some((c: unknown) => JSON.stringify(c) === JSON.stringify(box)));
    // The same crop again changes nothing and is annotated the same.
    const again = await crop({ _id: image._id, crop: box, annotate: true });
    assert.deepEqual(again.body._urls, res.body._urls);
    const refused = await crop({ _id: image._id, crop: box, annotate: 'yes' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.data.errors.map((e: { path: string }) => e.path), ['annotate']);
  });

  it('scales a large crop inside each size box', async () => {
    const big = await uploaded(t, 'big.jpg', await makeImage('jpeg', 2400, 1800));
    const box = { top: 0, left: 0, width: 2000, height: 1000 };
    assert.equal((await crop({ _id: big._id, crop: box })).body, true);
    const base = join(uploadsDir(t), 'attachments', `${big._id}-big.0.0.2000.1000`);
    const whole = await sharp(`${base}.jpg`).metadata();
    assert.deepEqual([whole.width, whole.height], [2000, 1000]);
    const max = await sharp(`${base}.max.jpg`).metadata();
    assert.deepEqual([max.width, max.height, max.format], [1600, 800, 'jpeg']);
    const sixth = await sharp(`${base}.one-sixth.jpg`).metadata();
    assert.deepEqual([sixth.width, sixth.height], [190, 95]);
  });

  it('stores the same box once', async () => {
    const box = { top: 1, left: 2, width: 3, height: 4 };
    assert.equal((await crop({ _id: image._id, crop: box })).body, true);
    const files = await listFiles(uploadsDir(t));
    assert.equal((await crop({ _id: image._id, crop: { ...box } })).body, true);
    assert.deepEqual(await listFiles(uploadsDir(t)), files);
    const crops = (await storedAttachment(t, image._id))!.crops as unknown[];
    assert.equal(crops.filter((c) => JSON.stringify(c) === JSON.stringify(box)).length, 1);
  });

  it('crops the upright image of a photo with an EXIF orientation', async () => {
    const photo = await uploaded(t, 'phone.jpg', await makeRotatedJpeg(400, 200));
    assert.equal((await crop({ _id: photo._id, crop: { top: 300, left: 0, width: 200, height: 100 } })).status, 200);
    const cropped = await sharp(join(uploadsDir(t), 'attachments', `${photo._id}-phone.300.0.200.100.jpg`)).metadata();
    assert.deepEqual([cropped.width, cropped.height], [200, 100]);
    const outside = await crop({ _id: photo._id, crop: { top: 0, left: 0, width: 300, height: 100 } });
    assert.equal(outside.status, 400, 'the stored width (400) is not the upright width (200)');
  });

  it('lets contributors crop their own upload and refuses guests and anonymous callers', async () => {
    const own = await upload(t, 'own.png', await makeImage('png', 40, 30), { key: 'contributor' });
    assert.equal(own.status, 200, own.text);
    assert.equal((await crop({ _id: own.body._id, crop: { top: 0, left: 0, width: 5, height: 5 } }, 'contributor')).status, 200);
    for (const key of ['guest', null] as const) {
      const res = await refusedCrop({ _id: image._id, crop: { top: 0, left: 0, width: 6, height: 6 } }, 403, key);
      assert.equal(res.body.name, 'forbidden');
    }
  });

  /** A refused crop: the status, the one error shape, and nothing changed on disk or in the record. */
  async function refusedCrop(body: unknown, status: number, key?: 'guest' | null): Promise<TestResponse> {
    const files = await listFiles(uploadsDir(t));
    const record = await storedAttachment(t, image._id);
    const count = await countAttachments(t);
    const res = await crop(body, key);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
    assert.deepEqual(await listFiles(uploadsDir(t)), files);
    assert.deepEqual(await storedAttachment(t, image._id), record);
    assert.equal(await countAttachments(t), count);
    return res;
  }

  it('validates the body: every bad part named', async () => {
    const id = image._id;
    const res = await refusedCrop({ crop: { top: 1.5, left: -1, width: 0, height: '10' } }, 400);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(res.body.data.errors.map((e: { path: string }) => e.path), ['_id', 'crop.top', 'crop.left', 'crop.width', 'crop.height']);
    const bad: unknown[] = [
      { _id: id },
      { _id: id, crop: null },
      { _id: id, crop: [1, 2, 3, 4] },
      { _id: id, crop: { top: 0, left: 0, width: 10 } },
      { _id: id, crop: { top: 0, left: 0, width: 1e20, height: 1 } },
      { _id: 'no such id!', crop: { top: 0, left: 0, width: 1, height: 1 } },
      { _id: 42, crop: { top: 0, left: 0, width: 1, height: 1 } },
      [id],
      'crop',
    ];
    for (const body of bad) assert.equal((await refusedCrop(body, 400)).body.name, 'invalid');
    const empty = await t.request('POST', cropUrl);
    assert.equal(empty.status, 400);
  });

  it('refuses a box outside the image', async () => {
    for (const box of [
      { top: 0, left: 0, width: 401, height: 1 },
      { top: 0, left: 0, width: 1, height: 301 },
      { top: 300, left: 0, width: 1, height: 1 },
      { top: 0, left: 350, width: 51, height: 1 },
    ]) {
      const res = await refusedCrop({ _id: image._id, crop: box }, 400);
      assert.deepEqual(res.body, { name: 'invalid', message: 'The crop box lies outside the 400×300 image', data: { width: 400, height: 300 } });
    }
  });

  it('refuses prototype keys in the body', async () => {
    const res = await refusedCrop(JSON.parse(`{"_id":"${image._id}","crop":{"top":0,"left":0,"width":1,"height":1,"__proto__":{"x":1}}}`), 400);
    assert.equal(res.body.data.errors[0].path, 'crop.__proto__');
    const constructor = await refusedCrop({ _id: image._id, crop: { top: 0, left: 0, width: 1, height: 1, constructor: {} } }, 400);
    assert.equal(constructor.body.data.errors[0].path, 'crop.constructor');
  });

  it('answers 404 for an unknown attachment and 400 for files that are not croppable', async () => {
    const unknown = await refusedCrop({ _id: 'nosuchattachment', crop: { top: 0, left: 0, width: 1, height: 1 } }, 404);
    assert.equal(unknown.body.name, 'notfound');
    const svg = await uploaded(t, 'icon.svg', '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>');
    const pdf = await uploaded(t, 'doc.pdf', makePdf());
    for (const file of [svg, pdf]) {
      const res = await refusedCrop({ _id: file._id, crop: { top: 0, left: 0, width: 1, height: 1 } }, 400);
      assert.equal(res.body.message, `A ${file.extension} file cannot be cropped`);
    }
  });
});

describe('a crop whose record update fails', () => {
  it('removes the files it wrote and leaves the record as it was', async () => {
    let failUpdate = false;
    const wrapStorage = (adapter: StorageAdapter): StorageAdapter => ({
      ...adapter,
      transaction: withOptionalOptions((options, work) =>
        adapter.transaction(options, (tx) =>
          work({
            ...tx,
            attachments: {
              ...tx.attachments,
              update: async (record) => {
                if (failUpdate) throw new Error('the disk is full');
                return tx.attachments.update(record);
              },
            },
          }),
        ),
      ),
    });
    const t = await startTestApp(testConfig(), {}, { wrapStorage });
    try {
      const image = await uploaded(t, 'pic.png', await makeImage('png', 50, 50));
      const files = await listFiles(uploadsDir(t));
      failUpdate = true;
      const res = await t.request('POST', cropUrl, { body: { _id: image._id, crop: { top: 0, left: 0, width: 10, height: 10 } } });
      assert.equal(res.status, 500);
      assert.deepEqual(await listFiles(uploadsDir(t)), files);
      assert.deepEqual((await storedAttachment(t, image._id))!.crops, []);
    } finally {
      await t.close();
    }
  });
});

/** A PNG of random pixels: it hardly compresses, so its crops and their sizes take real bytes. */
async function makeNoisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** A refused crop: the status, the one error shape, and nothing changed on disk or in the record. */
async function assertRefusedCrop(t: TestApp, id: string, body: unknown, status: number, key: keyof typeof keys): Promise<TestResponse> {
  const files = await listFiles(uploadsDir(t));
  const record = await storedAttachment(t, id);
  const res = await t.request('POST', cropUrl, { body, key });
  assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
  assert.deepEqual(await listFiles(uploadsDir(t)), files);
  assert.deepEqual(await storedAttachment(t, id), record);
  return res;
}

describe('crop limits', () => {
  it('refuses a crop past cropsPerAttachment (default 10) with a 400 naming the limit, writing nothing', async () => {
    const t = await startTestApp();
    try {
      const image = await uploaded(t, 'many.png', await makeImage('png', 60, 60));
      for (let index = 0; index < 10; index++) {
        const res = await t.request('POST', cropUrl, { body: { _id: image._id, crop: { top: 0, left: 0, width: index + 1, height: 5 } } });
        assert.equal(res.status, 200, res.text);
      }
      const res = await assertRefusedCrop(t, image._id, { _id: image._id, crop: { top: 0, left: 0, width: 20, height: 5 } }, 400, 'admin');
      assert.equal(res.body.name, 'invalid');
      assert.deepEqual(res.body.data, { limit: 'cropsPerAttachment', max: 10 });
      const again = await t.request('POST', cropUrl, { body: { _id: image._id, crop: { top: 0, left: 0, width: 3, height: 5 } } });
      assert.equal(again.body, true, 'a crop the attachment has already is answered as before');
      assert.equal((await storedAttachment(t, image._id))!.crops.length, 10);
    } finally {
      await t.close();
    }
  });

  it("charges crops to the caller's upload budget: past it, a 429 naming it and no file written", async () => {
    const budget = 150_000;
    const t = await startTestApp(undefined, { CMS_LIMIT_UPLOAD_BYTES_PER_MINUTE: String(budget), CMS_LIMIT_CROPS_PER_ATTACHMENT: '100' });
    try {
      const image = await uploaded(t, 'noise.png', await makeNoisePng(64, 64));
      const afterUpload = new Set(await listFiles(uploadsDir(t)));
      let refused: TestResponse | null = null;
      for (let index = 0; index < 20 && !refused; index++) {
        const body = { _id: image._id, crop: { top: 0, left: 0, width: 64 - index, height: 64 } };
        const files = await listFiles(uploadsDir(t));
        const res = await t.request('POST', cropUrl, { body });
        if (res.status === 200) continue;
        refused = res;
        assert.equal(res.status, 429, res.text);
        assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
        assert.equal(res.body.data.limit, 'uploadBytesPerMinute');
        assert.ok(Number(res.headers['retry-after']) >= 1);
        assert.deepEqual(await listFiles(uploadsDir(t)), files, 'the refused crop wrote nothing');
        assert.equal((await storedAttachment(t, image._id))!.crops.length, index);
        assert.ok(index >= 1, 'the budget left room for a crop');
      }
      assert.ok(refused, 'a crop was refused once the budget was spent');
      const cropFiles = (await listFiles(uploadsDir(t))).filter((path) => !afterUpload.has(path));
      const written = (await Promise.all(cropFiles.map(async (path) => (await stat(join(uploadsDir(t), path))).size))).reduce((a, b) => a + b, 0);
      assert.ok(image.length + written <= budget, `upload and crops took ${image.length + written} bytes of ${budget}`);
    } finally {
      await t.close();
    }
  });
});

describe('who may crop', () => {
  let t: TestApp;
  before(async () => {
    const config = testConfig();
    t = await startTestApp({
      ...config,
      modules: { ...(config.modules as Record<string, unknown>), album: { extend: '@cms/piece-type', options: { label: 'Album' }, fields: { add: { cover: { type: 'attachment' } } } } },
    });
  });
  after(() => t.close());

  const box = (width: number) => ({ top: 0, left: 0, width, height: 4 });

  it("refuses a contributor the attachment of an image piece it may not edit, and lets an editor crop it", async () => {
    const photo = await uploaded(t, 'published.png', await makeImage('png', 40, 30));
    const piece = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Published', attachment: { _id: photo._id } } });
    assert.equal(piece.status, 200, piece.text);
    const res = await assertRefusedCrop(t, photo._id, { _id: photo._id, crop: box(10) }, 403, 'contributor');
    assert.equal(res.body.name, 'forbidden');
    assert.equal((await t.request('POST', cropUrl, { body: { _id: photo._id, crop: box(10) }, key: 'editor' })).status, 200);
  });

  it('lets a contributor crop the attachment of a draft it may edit', async () => {
    const photo = await uploaded(t, 'cover.png', await makeImage('png', 40, 30));
    const draft = await t.request('POST', '/api/v1/album?cmsMode=draft', { key: 'contributor', body: { title: 'Trip', cover: { _id: photo._id } } });
    assert.equal(draft.status, 200, draft.text);
    assert.equal((await t.request('POST', cropUrl, { body: { _id: photo._id, crop: box(11) }, key: 'contributor' })).status, 200);
  });

  it('lets the uploader, or an admin, crop an upload while no document uses it, and no one else', async () => {
    const own = await upload(t, 'mine.png', await makeImage('png', 40, 30), { key: 'contributor' });
    assert.equal(own.status, 200, own.text);
    const id = own.body._id;
    assert.equal((await t.request('POST', cropUrl, { body: { _id: id, crop: box(12) }, key: 'contributor' })).status, 200);
    assert.equal((await assertRefusedCrop(t, id, { _id: id, crop: box(13) }, 403, 'editor')).body.name, 'forbidden');
    assert.equal((await t.request('POST', cropUrl, { body: { _id: id, crop: box(15) }, key: 'admin' })).status, 200);
    // Once an image piece the contributor may not edit holds it, the upload is that piece's to crop.
    const piece = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Taken', attachment: { _id: id } } });
    assert.equal(piece.status, 200, piece.text);
    await assertRefusedCrop(t, id, { _id: id, crop: box(14) }, 403, 'contributor');
  });
});
