import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, makeImage, pathOf, sizeNames, storedAttachment, uploaded, uploadsDir } from '../helpers/media.js';

const cropUrl = '/api/v1/@cms/attachment/crop';

/** The fixture config plus `page`: an image relationship with crop fields, one with fields of its own, image widgets. */
function pagesConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  modules.page = {
    extend: '@cms/piece-type',
    options: { label: 'Page' },
    fields: {
      add: {
        _image: { type: 'relationship', withType: '@cms/image', max: 1 },
        _gallery: { type: 'relationship', withType: '@cms/image', fields: { add: { top: { type: 'integer' }, caption: { type: 'string' } } } },
        body: { type: 'area', options: { widgets: { '@cms/image': {} } } },
        main: { type: 'area', options: { widgets: { '@cms/image': { aspectRatio: [3, 2] } } } },
      },
    },
  };
  return config;
}

describe('image relationship crops', () => {
  let t: TestApp;

  async function imagePiece(title: string, attachment: Record<string, any>): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: attachment._id } } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function cropped(attachmentId: string, crop: Record<string, number>): Promise<void> {
    const res = await t.request('POST', cropUrl, { body: { _id: attachmentId, crop } });
    assert.equal(res.status, 200, res.text);
  }

  async function newPage(body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/page', { body: { title: 'Page', ...body } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  const getPage = async (id: string, query = '') => {
    const res = await t.request('GET', `/api/v1/page/${id}${query}`);
    assert.equal(res.status, 200, res.text);
    return res;
  };

  /** A 400×300 image with the crop `box` made for it. */
  async function croppedImage(title: string, box: Record<string, number>): Promise<Record<string, any>> {
    const image = await imagePiece(title, await uploaded(t, `${title.toLowerCase()}.png`, await makeImage('png', 400, 300)));
    await cropped(image.attachment._id, box);
    return image;
  }

  before(async () => {
    t = await startTestApp(pagesConfig());
  });
  after(() => t.close());

  describe('storing', () => {
    it('stores the crop box and focal point per related image in <name>Fields, as integers', async () => {
      const box = { top: 10, left: 20, width: 200, height: 100 };
      const image = await croppedImage('Stored', box);
      const page = await newPage({ _image: [{ _id: image._id, _fields: { ...box, x: 30, y: 70 } }] });
      assert.deepEqual(page.imageIds, [image.cmsDocId]);
      assert.deepEqual(page.imageFields, { [image.cmsDocId]: { ...box, x: 30, y: 70 } });
      assert.deepEqual(page._image[0]._fields, { ...box, x: 30, y: 70 });
      // Numbers spelled as strings convert as any integer field's do.
      const spelled = await newPage({ _image: [{ _id: image._id, _fields: { top: '10', left: '20', width: '200', height: '100' } }] });
      assert.deepEqual(spelled.imageFields[image.cmsDocId], { ...box, x: null, y: null });
    });

    it('stores no box that is not one of the crops made for the image\'s file (the focal point stays)', async () => {
      const image = await croppedImage('Unmade', { top: 0, left: 0, width: 100, height: 100 });
      const page = await newPage({ _image: [{ _id: image._id, _fields: { top: 1, left: 1, width: 100, height: 100, x: 5, y: 6 } }] });
      assert.deepEqual(page.imageFields[image.cmsDocId], { top: null, left: null, width: null, height: null, x: 5, y: 6 });
      assert.equal(page._image[0].attachment._crop, undefined);
      assert.equal(page._image[0].attachment._urls.full, image.attachment._urls.full);
    });

    it('refuses hostile crop values with 400, storing nothing', async () => {
      const image = await croppedImage('Hostile', { top: 0, left: 0, width: 100, height: 100 });
      const hostile: unknown[] = [
        { top: -1, left: 0, width: 100, height: 100 },
        { x: 101, y: 5 },
        { x: 5, y: -1 },
        { top: 'ten', left: 0, width: 100, height: 100 },
        { top: 0.5, left: 0, width: 100, height: 100 },
        { top: 1e300, left: 0, width: 100, height: 100 },
        { top: [0], left: 0, width: 100, height: 100 },
        'not an object',
      ];
      const before = await t.request('GET', '/api/v1/page?perPage=100');
      for (const fields of hostile) {
        const res = await t.request('POST', '/api/v1/page', { body: { title: 'Bad', _image: [{ _id: image._id, _fields: fields }] } });
        assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
        assert.equal(res.body.name, 'invalid');
      }
      const afterwards = await t.request('GET', '/api/v1/page?perPage=100');
      assert.equal(afterwards.body.results.length, before.body.results.length);
      // `__proto__` is refused as in any body; unknown keys are not stored.
      const proto = await t.request('POST', '/api/v1/page', {
        headers: { 'content-type': 'application/json' },
        payload: `{"title":"Proto","_image":[{"_id":"${image._id}","_fields":{"__proto__":{"polluted":1},"x":1,"y":2}}]}`,
      });
      assert.equal(proto.status, 400, proto.text);
      const res = await t.request('POST', '/api/v1/page', { body: { title: 'Extra', _image: [{ _id: image._id, _fields: { evil: 1, x: 1, y: 2 } }] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.imageFields[image.cmsDocId], { top: null, left: null, width: null, height: null, x: 1, y: 2 });
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('leaves relationships to images that declare fields of their own alone', async () => {
      const image = await croppedImage('Gallery', { top: 0, left: 0, width: 100, height: 100 });
      const page = await newPage({ _gallery: [{ _id: image._id, _fields: { top: 7, caption: 'Hi' } }] });
      assert.deepEqual(page.galleryFields[image.cmsDocId], { top: 7, caption: 'Hi' });
      assert.equal(page._gallery[0].attachment._crop, undefined);
    });
  });

  describe('reading', () => {
    it('answers the related image\'s attachment with _crop, the cropped files\' _urls, _urls.uncropped and _focalPoint', async () => {
      const box = { top: 0, left: 50, width: 300, height: 300 };
      const image = await croppedImage('Read', box);
      const page = await newPage({ _image: [{ _id: image._id, _fields: { ...box, x: 40, y: 60 } }] });
      const { body } = await getPage(page._id);
      const attachment = body._image[0].attachment;
      const id = image.attachment._id;
      assert.deepEqual(attachment._crop, box);
      assert.deepEqual(attachment._focalPoint, { x: 40, y: 60 });
      assert.equal(attachment._urls.full, `http://cms.test/uploads/attachments/${id}-read.0.50.300.300.full.png`);
      assert.equal(attachment._urls.original, `http://cms.test/uploads/attachments/${id}-read.0.50.300.300.png`);
      assert.equal(attachment._urls.uncropped.full, `http://cms.test/uploads/attachments/${id}-read.full.png`);
      assert.equal(attachment._urls.uncropped.original, `http://cms.test/uploads/attachments/${id}-read.png`);
      for (const size of sizeNames) assert.equal((await fetchRaw(t, pathOf(attachment._urls[size]))).status, 200, size);
      // The image read on its own is not cropped.
      const own = await t.request('GET', `/api/v1/@cms/image/${image._id}`);
      assert.equal(own.body.attachment._crop, undefined);
      assert.equal(own.body.attachment._focalPoint, undefined);
    });

    it('shows a focal point without a box on the uncropped files', async () => {
      const image = await croppedImage('Focal', { top: 0, left: 0, width: 10, height: 10 });
      const page = await newPage({ _image: [{ _id: image._id, _fields: { x: 0, y: 100 } }] });
      const attachment = (await getPage(page._id)).body._image[0].attachment;
      assert.deepEqual(attachment._focalPoint, { x: 0, y: 100 });
      assert.equal(attachment._crop, undefined);
      assert.equal(attachment._urls.full, image.attachment._urls.full);
    });

    it('crops images in image widgets of areas, in the answer and in rendered HTML', async () => {
      const box = { top: 20, left: 0, width: 400, height: 200 };
      const image = await croppedImage('Widget', box);
      const page = await newPage({ body: { metaType: 'area', items: [{ type: '@cms/image', _image: [{ _id: image._id, _fields: box }] }] } });
      const widget = page.body.items[0];
      assert.deepEqual(widget.imageFields[image.cmsDocId], { ...box, x: null, y: null });
      const read = (await getPage(page._id)).body.body.items[0];
      const id = image.attachment._id;
      assert.deepEqual(read._image[0].attachment._crop, box);
      assert.equal(read._image[0].attachment._urls.full, `http://cms.test/uploads/attachments/${id}-widget.20.0.400.200.full.png`);
      const rendered = (await getPage(page._id, '?render-areas=1')).body.body._rendered as string;
      assert.match(rendered, new RegExp(`src="http://cms.test/uploads/attachments/${id}-widget\\.20\\.0\\.400\\.200\\.full\\.png"`));
    });
  });

  describe('replacing the image\'s file', () => {
    async function replaceFile(image: Record<string, any>, attachment: Record<string, any>, version = image._id) {
      const res = await t.request('PATCH', `/api/v1/@cms/image/${version}`, { body: { attachment: { _id: attachment._id } } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    }

    it('keeps a box that still fits the larger new file, making its files, and resets the focal point', async () => {
      const box = { top: 10, left: 20, width: 200, height: 100 };
      const image = await croppedImage('Larger', box);
      const page = await newPage({ _image: [{ _id: image._id, _fields: { ...box, x: 30, y: 70 } }] });
      const stale = await getPage(page._id);
      const larger = await uploaded(t, 'larger.png', await makeImage('png', 800, 600, '#3c3'));
      await replaceFile(image, larger);
      const read = await getPage(page._id);
      assert.deepEqual(read.body.imageFields[image.cmsDocId], { ...box, x: null, y: null });
      const attachment = read.body._image[0].attachment;
      assert.equal(attachment._id, larger._id);
      assert.deepEqual(attachment._crop, box);
      assert.equal(attachment._focalPoint, undefined);
      assert.equal(attachment._urls.full, `http://cms.test/uploads/attachments/${larger._id}-larger.10.20.200.100.full.png`);
      assert.deepEqual((await storedAttachment(t, larger._id))!.crops, [box]);
      const metadata = await sharp(join(uploadsDir(t), 'attachments', `${larger._id}-larger.10.20.200.100.png`)).metadata();
      assert.deepEqual([metadata.width, metadata.height], [200, 100]);
      for (const size of sizeNames) assert.equal((await fetchRaw(t, pathOf(attachment._urls[size]))).status, 200, size);
      // The page's content changed: its validator moved, and an editor's stale If-Match is refused.
      assert.notEqual(read.headers.etag, stale.headers.etag);
      assert.ok(read.body.updatedAt > stale.body.updatedAt);
      const overwrite = await t.request('PATCH', `/api/v1/page/${page._id}`, {
        headers: { 'if-match': String(stale.headers.etag) },
        body: { _image: [{ _id: image._id, _fields: { ...box, x: 30, y: 70 } }] },
      });
      assert.equal(overwrite.status, 412, overwrite.text);
      // The draft version was brought up to date too.
      const draft = await t.request('GET', `/api/v1/page/${page.cmsDocId}:en:draft`);
      assert.deepEqual(draft.body.imageFields[image.cmsDocId], { ...box, x: null, y: null });
    });

    it('recomputes a box that does not fit the smaller new file: the centred box of the old ratio', async () => {
      const box = { top: 0, left: 50, width: 300, height: 300 };
      const image = await croppedImage('Smaller', box);
      const page = await newPage({ _image: [{ _id: image._id, _fields: box }] });
      const smaller = await uploaded(t, 'smaller.png', await makeImage('png', 200, 100, '#33c'));
      // Through the draft, which the image's autopublish then publishes.
      await replaceFile(image, smaller, `${image.cmsDocId}:en:draft`);
      const read = await getPage(page._id);
      // 1:1 on 200×100: the full height and the centred 100 columns.
      const recomputed = { top: 0, left: 50, width: 100, height: 100 };
      assert.deepEqual(read.body.imageFields[image.cmsDocId], { ...recomputed, x: null, y: null });
      assert.deepEqual(read.body._image[0].attachment._crop, recomputed);
      const file = join(uploadsDir(t), 'attachments', `${smaller._id}-smaller.0.50.100.100.png`);
      assert.deepEqual([(await sharp(file).metadata()).width, (await sharp(file).metadata()).height], [100, 100]);
    });

    it('resets a focal point without a box, and recrops relationships inside image widgets', async () => {
      const box = { top: 0, left: 0, width: 400, height: 300 };
      const image = await croppedImage('Widgets', box);
      const page = await newPage({
        _image: [{ _id: image._id, _fields: { x: 10, y: 90 } }],
        body: { metaType: 'area', items: [{ type: '@cms/image', _image: [{ _id: image._id, _fields: { ...box, x: 50, y: 50 } }] }] },
      });
      const replacement = await uploaded(t, 'wide.png', await makeImage('png', 300, 100));
      await replaceFile(image, replacement);
      const read = (await getPage(page._id)).body;
      assert.deepEqual(read.imageFields[image.cmsDocId], { top: null, left: null, width: null, height: null, x: null, y: null });
      assert.equal(read._image[0].attachment._focalPoint, undefined);
      // 4:3 on 300×100: the full height and the centred 133 columns.
      const recomputed = { top: 0, left: 83, width: 133, height: 100 };
      assert.deepEqual(read.body.items[0].imageFields[image.cmsDocId], { ...recomputed, x: null, y: null });
      assert.deepEqual(read.body.items[0]._image[0].attachment._crop, recomputed);
    });

    it('passes the original\'s test: autocrop for a widget, the piece saved, the file replaced by PUT, a crop of the ratio served', async () => {
      const landscape = await uploaded(t, 'landscape.jpg', await makeImage('jpeg', 600, 450));
      const created = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Test Image Landscape', attachment: landscape } });
      let image = created.body;
      assert.equal(image._prevAttachmentId, landscape._id);
      const crop = await t.request('POST', '/api/v1/@cms/image/autocrop', { body: { relationship: [image], widgetOptions: { aspectRatio: [3, 2] } } });
      const [related] = crop.body.relationship;
      const widget = { type: '@cms/image', metaType: 'widget', imageIds: [image.cmsDocId], imageFields: { [image.cmsDocId]: related._fields }, _image: [related] };
      const page = await newPage({ main: { metaType: 'area', items: [widget] } });
      const cropFile = (attachment: Record<string, any>, f: Record<string, unknown>) =>
        pathOf(attachment._urls.original.replace('.jpg', `.${f.top}.${f.left}.${f.width}.${f.height}.jpg`));
      let fields = page.main.items[0].imageFields[image.cmsDocId];
      assert.deepEqual(fields, { top: 25, left: 0, width: 600, height: 400, x: null, y: null });
      assert.equal((await fetchRaw(t, cropFile(landscape, fields))).status, 200);
      const portrait = await uploaded(t, 'portrait.jpg', await makeImage('jpeg', 450, 600));
      const replaced = await t.request('PUT', `/api/v1/@cms/image/${image._id}`, { body: { title: 'Test Image Portrait', attachment: portrait } });
      assert.equal(replaced.status, 200, replaced.text);
      image = replaced.body;
      assert.equal(image._prevAttachmentId, portrait._id);
      fields = (await getPage(page._id)).body.main.items[0].imageFields[image.cmsDocId];
      // 3:2 no longer fits 450×600: the centred box of that ratio on the new file.
      assert.deepEqual(fields, { top: 150, left: 0, width: 450, height: 300, x: null, y: null });
      assert.equal((await fetchRaw(t, cropFile(portrait, fields))).status, 200);
      // Every reader of an image sees the attachment it holds as _prevAttachmentId, anonymous ones too.
      const read = await t.request('GET', `/api/v1/@cms/image/${image._id}`, { key: null });
      assert.equal(read.body._prevAttachmentId, portrait._id);
      const projected = await t.request('GET', `/api/v1/@cms/image/${image._id}?project[title]=1`);
      assert.equal('_prevAttachmentId' in projected.body, false);
    });

    it('changes nothing when the file stays, and refuses a replacement past imageRecropDocuments', async () => {
      const box = { top: 0, left: 0, width: 100, height: 100 };
      const image = await croppedImage('Stays', box);
      const page = await newPage({ _image: [{ _id: image._id, _fields: { ...box, x: 1, y: 2 } }] });
      const before = await getPage(page._id);
      const renamed = await t.request('PATCH', `/api/v1/@cms/image/${image._id}`, { body: { title: 'Renamed', attachment: { _id: image.attachment._id } } });
      assert.equal(renamed.status, 200, renamed.text);
      const read = await getPage(page._id);
      assert.deepEqual(read.body.imageFields, before.body.imageFields);
      assert.equal(read.body.updatedAt, before.body.updatedAt);
    });
  });
});

describe('image relationship crops: the recrop limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(pagesConfig(), { CMS_LIMIT_IMAGE_RECROP_DOCUMENTS: '1' });
  });
  after(() => t.close());

  it('refuses (400, nothing stored) to replace the file of an image more documents relate to than the limit', async () => {
    const first = await uploaded(t, 'first.png', await makeImage('png', 100, 100));
    const image = (await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Shared', attachment: { _id: first._id } } })).body;
    for (const title of ['One', 'Two']) {
      const res = await t.request('POST', '/api/v1/page', { body: { title, _image: [image._id] } });
      assert.equal(res.status, 200, res.text);
    }
    const second = await uploaded(t, 'second.png', await makeImage('png', 100, 100));
    const res = await t.request('PATCH', `/api/v1/@cms/image/${image._id}`, { body: { attachment: { _id: second._id } } });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.data, { limit: 'imageRecropDocuments', max: 1 });
    const read = await t.request('GET', `/api/v1/@cms/image/${image._id}`);
    assert.equal(read.body.attachment._id, first._id);
  });
});
