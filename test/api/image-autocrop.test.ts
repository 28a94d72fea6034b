import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, makeHalvesPng, makeImage, pathOf, sizeNames, storedAttachment, uploaded, uploadsDir } from '../helpers/media.js';
import { join } from 'node:path';

const autocropUrl = '/api/v1/@cms/image/autocrop';

describe('image autocrop', () => {
  let t: TestApp;
  let landscape: Record<string, any>;
  let portrait: Record<string, any>;
  let svg: Record<string, any>;

  async function imagePiece(title: string, attachment: Record<string, any>): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: attachment._id } } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  before(async () => {
    t = await startTestApp();
    landscape = await imagePiece('Landscape', await uploaded(t, 'halves.png', await makeHalvesPng(400, 300)));
    portrait = await imagePiece('Portrait', await uploaded(t, 'tall.jpg', await makeImage('jpeg', 300, 400)));
    const logo = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    svg = await imagePiece('Logo', await uploaded(t, 'logo.svg', logo));
  });
  after(() => t.close());

  const autocrop = (body: unknown, key?: 'contributor' | 'guest' | 'editor' | null, query = '') =>
    t.request('POST', `${autocropUrl}${query}`, { body, key });

  it('answers the centred crop of the aspect ratio as the image\'s _fields, its files made at once', async () => {
    const res = await autocrop({ relationship: [{ _id: landscape._id }], widgetOptions: { aspectRatio: [1, 1] } });
    assert.equal(res.status, 200, res.text);
    const [image] = res.body.relationship;
    // 400×300 at 1:1: the full height and the centred 300 columns.
    const crop = { top: 0, left: 50, width: 300, height: 300 };
    assert.deepEqual(image._fields, crop);
    assert.deepEqual(image._crop, crop);
    assert.equal(image._id, landscape._id);
    assert.equal(image.title, 'Landscape');
    const id = landscape.attachment._id;
    const base = `${id}-halves.0.50.300.300`;
    assert.equal(image.attachment._urls.full, `http://cms.test/uploads/attachments/${base}.full.png`);
    assert.deepEqual(image.attachment._crop, crop);
    assert.equal(image.attachment._urls.uncropped.full, `http://cms.test/uploads/attachments/${id}-halves.full.png`);
    const metadata = await sharp(join(uploadsDir(t), 'attachments', `${base}.png`)).metadata();
    assert.deepEqual([metadata.width, metadata.height], [300, 300]);
    for (const size of sizeNames) {
      const served = await fetchRaw(t, pathOf(`http://cms.test/uploads/attachments/${base}.${size}.png`));
      assert.equal(served.status, 200, size);
    }
    assert.deepEqual((await storedAttachment(t, id))!.crops, [crop]);
    // The same request again finds the crop made: nothing new.
    const again = await autocrop({ relationship: [{ _id: landscape._id }], widgetOptions: { aspectRatio: [1, 1] } });
    assert.deepEqual(again.body.relationship[0]._fields, crop);
    assert.equal((await storedAttachment(t, id))!.crops.length, 1);
  });

  it('computes the band of rows as the original does for a ratio wider than the image (floored)', async () => {
    const res = await autocrop({ relationship: [{ _id: portrait._id }], widgetOptions: { aspectRatio: [16, 9] } });
    assert.equal(res.status, 200, res.text);
    // 300 wide at 16:9 is 168.75 high: top floor((400 - 168.75) / 2) = 115, height floor(168.75) = 168.
    assert.deepEqual(res.body.relationship[0]._fields, { top: 115, left: 0, width: 300, height: 168 });
    const file = join(uploadsDir(t), 'attachments', `${portrait.attachment._id}-tall.115.0.300.168.jpg`);
    const metadata = await sharp(file).metadata();
    assert.deepEqual([metadata.width, metadata.height], [300, 168]);
  });

  it('leaves a crop already of the ratio (within 1%) as it is, focal point included', async () => {
    const fields = { top: 1, left: 2, width: 200, height: 101, x: 40, y: 60 };
    const res = await autocrop({ relationship: [{ _id: landscape._id, _fields: fields }], widgetOptions: { aspectRatio: [2, 1] } });
    assert.equal(res.status, 200, res.text);
    const [image] = res.body.relationship;
    assert.deepEqual(image._fields, fields);
    assert.equal(image._crop, undefined);
  });

  it('recrops a crop of another ratio, and one that does not fit the current file, dropping the focal point', async () => {
    const other = await autocrop({
      relationship: [{ _id: landscape._id, _fields: { top: 0, left: 0, width: 100, height: 100, x: 5, y: 5 } }],
      widgetOptions: { aspectRatio: [4, 3] },
    });
    // 4:3 is the image's own ratio: the whole image.
    assert.deepEqual(other.body.relationship[0]._fields, { top: 0, left: 0, width: 400, height: 300 });
    const stale = await autocrop({
      relationship: [{ _id: landscape._id, _fields: { top: 0, left: 300, width: 200, height: 200 } }],
      widgetOptions: { aspectRatio: [1, 1] },
    });
    assert.deepEqual(stale.body.relationship[0]._fields, { top: 0, left: 50, width: 300, height: 300 });
  });

  it('launders _fields as the original: whole numbers, none when one is negative or the box is incomplete', async () => {
    const res = await autocrop({
      relationship: [
        { _id: landscape._id, _fields: { top: 1.7, left: 2.2, width: 10.9, height: 20, x: 'a', y: 3 } },
        { _id: landscape._id, _fields: { top: -1, left: 0, width: 10, height: 10 } },
        { _id: landscape._id, _fields: { top: 0, left: 0, width: 10 } },
        { _id: landscape._id, _fields: { top: 0, left: 0, width: 0, height: 10 } },
        { _id: landscape._id, _fields: 'crop' },
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.relationship.map((image: any) => image._fields),
      [{ top: 1, left: 2, width: 10, height: 20, y: 3 }, {}, {}, {}, {}],
    );
  });

  it('without an aspect ratio answers the images as found, nothing cropped, _fields only where they were sent', async () => {
    const before = (await storedAttachment(t, portrait.attachment._id))!.crops.length;
    // The original's "autocrop should have no effect when there are no widget options": the image piece as read.
    const res = await autocrop({ relationship: [portrait, { _id: portrait._id, _fields: { top: 1.5, left: 0, width: 10, height: 10 } }], widgetOptions: {} });
    assert.equal(res.status, 200, res.text);
    const [asRead, withFields] = res.body.relationship;
    assert.equal(asRead.title, 'Portrait');
    assert.equal('_fields' in asRead, false);
    assert.equal(asRead._crop, undefined);
    assert.deepEqual(withFields._fields, { top: 1, left: 0, width: 10, height: 10 });
    const bare = await autocrop({ relationship: [{ _id: portrait._id }] });
    assert.equal(bare.status, 200);
    assert.equal('_fields' in bare.body.relationship[0], false);
    assert.equal((await storedAttachment(t, portrait.attachment._id))!.crops.length, before);
  });

  it('passes an SVG through unchanged, and drops unknown ids and entries that name no image, keeping the order', async () => {
    const res = await autocrop({
      relationship: [{ _id: svg._id, _fields: { x: 1 } }, { _id: svg._id, _fields: { top: 0, left: 0, width: 50, height: 50 } }, { _id: 'nosuchimage0000000000000' }, 'text', null, 7, { title: 'no id' }, { _id: portrait.cmsDocId }],
      widgetOptions: { aspectRatio: [1, 1] },
    });
    assert.equal(res.status, 200, res.text);
    const [logo, boxed, tall] = res.body.relationship;
    assert.equal(res.body.relationship.length, 3);
    // An SVG has no size a box could miss: its fields stay, as in the original; nothing is cropped.
    assert.deepEqual(boxed._fields, { top: 0, left: 0, width: 50, height: 50 });
    assert.equal(boxed._crop, undefined);
    assert.equal(logo._id, svg._id);
    assert.deepEqual(logo._fields, {});
    assert.equal(logo._crop, undefined);
    assert.equal(logo.attachment.extension, 'svg');
    // A bare cmsDocId finds the image in the requested version.
    assert.equal(tall._id, portrait._id);
    assert.deepEqual(tall._fields, { top: 50, left: 0, width: 300, height: 300 });
  });

  it('needs the contributor role, as uploading does', async () => {
    const body = { relationship: [{ _id: landscape._id }], widgetOptions: { aspectRatio: [3, 1] } };
    const crops = (await storedAttachment(t, landscape.attachment._id))!.crops.length;
    const guest = await autocrop(body, 'guest');
    assert.equal(guest.status, 403);
    assert.equal(guest.body.name, 'forbidden');
    assert.equal((await autocrop(body, null)).status, 403);
    assert.equal((await storedAttachment(t, landscape.attachment._id))!.crops.length, crops);
    const contributor = await autocrop(body, 'contributor', '?cmsMode=draft');
    assert.equal(contributor.status, 200, contributor.text);
    assert.deepEqual(contributor.body.relationship[0]._fields, { top: 83, left: 0, width: 400, height: 133 });
  });

  it('refuses hostile shapes with a 400 and makes nothing', async () => {
    const crops = (await storedAttachment(t, landscape.attachment._id))!.crops.length;
    const image = { _id: landscape._id };
    const cases: unknown[] = [
      [image],
      'relationship',
      { relationship: image },
      { relationship: [image], widgetOptions: 'wide' },
      { relationship: [image], widgetOptions: { aspectRatio: '16:9' } },
      { relationship: [image], widgetOptions: { aspectRatio: [16] } },
      { relationship: [image], widgetOptions: { aspectRatio: [16, 9, 1] } },
      { relationship: [image], widgetOptions: { aspectRatio: [0, 1] } },
      { relationship: [image], widgetOptions: { aspectRatio: [-1, 1] } },
      { relationship: [image], widgetOptions: { aspectRatio: ['16', 9] } },
      { relationship: Array.from({ length: 21 }, () => image), widgetOptions: { aspectRatio: [5, 1] } },
    ];
    for (const body of cases) {
      const res = await autocrop(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    }
    const tooMany = await autocrop(cases.at(-1));
    assert.deepEqual(tooMany.body.data.errors?.[0]?.data ?? tooMany.body.data, { limit: 'autocropImages', max: 20 });
    const proto = await t.request('POST', autocropUrl, {
      payload: `{"relationship":[{"_id":"${landscape._id}","__proto__":{"x":1}}],"widgetOptions":{"aspectRatio":[5,1]}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(proto.status, 400, proto.text);
    assert.equal((await storedAttachment(t, landscape.attachment._id))!.crops.length, crops);
  });
});

describe('image autocrop: crops per attachment', () => {
  let t: TestApp;
  after(() => t.close());

  it('refuses, before making any crop, a request that would take an attachment past cropsPerAttachment', async () => {
    t = await startTestApp(undefined, { CMS_LIMIT_CROPS_PER_ATTACHMENT: '1' });
    const pieces: Record<string, any>[] = [];
    for (const name of ['free.png', 'full.png']) {
      const attachment = await uploaded(t, name, await makeImage('png', 200, 100));
      const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: name, attachment: { _id: attachment._id } } });
      pieces.push(res.body);
    }
    const [free, full] = pieces as [Record<string, any>, Record<string, any>];
    const crop = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: full.attachment._id, crop: { top: 0, left: 0, width: 10, height: 10 } } });
    assert.equal(crop.status, 200, crop.text);
    const res = await t.request('POST', autocropUrl, {
      body: { relationship: [{ _id: free._id }, { _id: full._id }], widgetOptions: { aspectRatio: [1, 1] } },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.data, { limit: 'cropsPerAttachment', max: 1 });
    assert.deepEqual((await storedAttachment(t, free.attachment._id))!.crops, []);
    // A crop the attachment has already needs no room: 10×10 is square.
    const kept = await t.request('POST', autocropUrl, {
      body: { relationship: [{ _id: full._id, _fields: { top: 0, left: 0, width: 10, height: 10 } }], widgetOptions: { aspectRatio: [1, 1] } },
    });
    assert.equal(kept.status, 200, kept.text);
  });
});
