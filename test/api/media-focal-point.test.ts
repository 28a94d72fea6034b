import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { makeImage, storedAttachment, uploaded, uploadsDir } from '../helpers/media.js';

const focalPointUrl = '/api/v1/@cms/attachment/focal-point';
const autocropUrl = '/api/v1/@cms/image/autocrop';

/** The fixture config plus `page`, which shows one image through a relationship with crop fields. */
function pagesConfig(): Record<string, unknown> {
  const config = testConfig();
  (config.modules as Record<string, unknown>).page = {
    extend: '@cms/piece-type',
    options: { label: 'Page' },
    fields: { add: { _image: { type: 'relationship', withType: '@cms/image', max: 1 } } },
  };
  return config;
}

describe('attachment focal point', () => {
  let t: TestApp;
  let image: Record<string, any>;
  let attachmentId: string;

  async function imagePiece(title: string, attachment: Record<string, any>): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: attachment._id } } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  const setFocalPoint = (body: unknown, key?: 'contributor' | 'guest' | 'editor' | null) => t.request('POST', focalPointUrl, { body, key });

  before(async () => {
    t = await startTestApp(pagesConfig());
    image = await imagePiece('Wide', await uploaded(t, 'wide.png', await makeImage('png', 400, 200)));
    attachmentId = image.attachment._id;
  });
  after(() => t.close());

  it('sets the focal point, answers the attachment with it, and every answer holding the attachment shows it', async () => {
    const res = await setFocalPoint({ _id: attachmentId, focalPoint: { x: 90, y: 25 } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body._id, attachmentId);
    assert.deepEqual(res.body.focalPoint, { x: 90, y: 25 });
    assert.equal(res.body._urls.full, `http://cms.test/uploads/attachments/${attachmentId}-wide.full.png`);
    assert.deepEqual((await storedAttachment(t, attachmentId))!.focalPoint, { x: 90, y: 25 });
    const read = await t.request('GET', `/api/v1/@cms/image/${image._id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.attachment.focalPoint, { x: 90, y: 25 });
  });

  it('refuses bad values with a 400 naming each, storing nothing', async () => {
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 10, y: 10 } });
    const cases: [unknown, string[]][] = [
      [{ _id: attachmentId, focalPoint: { x: 101, y: 50 } }, ['focalPoint.x']],
      [{ _id: attachmentId, focalPoint: { x: -1, y: 50.5 } }, ['focalPoint.x', 'focalPoint.y']],
      [{ _id: attachmentId, focalPoint: { x: '50', y: 50 } }, ['focalPoint.x']],
      [{ _id: attachmentId, focalPoint: { x: 50, y: 50, z: 1 } }, ['focalPoint']],
      [{ _id: attachmentId, focalPoint: [50, 50] }, ['focalPoint']],
      [{ _id: attachmentId }, ['focalPoint']],
      [{ _id: '../etc', focalPoint: { x: 1, y: 1 } }, ['_id']],
      [{ _id: { $ne: 1 }, focalPoint: { x: 1, y: 1 } }, ['_id']],
      [{ _id: [attachmentId], focalPoint: { x: 1, y: 1 } }, ['_id']],
      [{ _id: 'a'.repeat(100_000), focalPoint: { x: 1, y: 1 } }, ['_id']],
      [{ _id: attachmentId, focalPoint: { x: 1e308, y: 1 } }, ['focalPoint.x']],
    ];
    for (const [body, paths] of cases) {
      const res = await setFocalPoint(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.name, 'invalid');
      assert.deepEqual(res.body.data.errors.map((error: any) => error.path), paths, JSON.stringify(body));
    }
    const notObject = await setFocalPoint('x=1');
    assert.equal(notObject.status, 400);
    for (const payload of ['', 'null', `{"_id":"${attachmentId}","focalPoint":{"__proto__":{"x":1},"x":1,"y":1}}`]) {
      const res = await t.request('POST', focalPointUrl, { payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, `${payload}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
    }
    const missing = await setFocalPoint({ _id: 'nosuchattachment', focalPoint: { x: 1, y: 1 } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.name, 'notfound');
    assert.deepEqual((await storedAttachment(t, attachmentId))!.focalPoint, { x: 10, y: 10 });
  });

  it('refuses a file without pixels (SVG) with a 400', async () => {
    const logo = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    const svg = await uploaded(t, 'logo.svg', logo);
    const res = await setFocalPoint({ _id: svg._id, focalPoint: { x: 1, y: 1 } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.name, 'invalid');
    assert.equal((await storedAttachment(t, svg._id))!.focalPoint, undefined);
  });

  it('needs the rights of a crop: anonymous callers, guests and a contributor who cannot edit the image get a 403', async () => {
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 10, y: 10 } });
    const anonymous = await setFocalPoint({ _id: attachmentId, focalPoint: { x: 1, y: 1 } }, null);
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal(anonymous.body.data.requiredRole, 'contributor');
    for (const key of ['guest', 'contributor'] as const) {
      const res = await setFocalPoint({ _id: attachmentId, focalPoint: { x: 1, y: 1 } }, key);
      assert.equal(res.status, 403, `${key}: ${res.text}`);
      assert.equal(res.body.name, 'forbidden');
    }
    const editor = await setFocalPoint({ _id: attachmentId, focalPoint: { x: 20, y: 30 } }, 'editor');
    assert.equal(editor.status, 200, editor.text);
    assert.deepEqual((await storedAttachment(t, attachmentId))!.focalPoint, { x: 20, y: 30 });
  });

  it('clears the focal point with null', async () => {
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 10, y: 10 } });
    const res = await setFocalPoint({ _id: attachmentId, focalPoint: null });
    assert.equal(res.status, 200, res.text);
    assert.equal('focalPoint' in res.body, false);
    assert.equal('focalPoint' in (await storedAttachment(t, attachmentId))!, false);
  });

  it('autocrop centres the crop on the focal point, clamped to the image, and makes files of that box', async () => {
    // 400×200 at 1:1 is a 200×200 box; centred on x 90% (360) it would end at 460: clamped to left 200.
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 90, y: 50 } });
    const clamped = await t.request('POST', autocropUrl, { body: { relationship: [{ _id: image._id }], widgetOptions: { aspectRatio: [1, 1] } } });
    assert.equal(clamped.status, 200, clamped.text);
    assert.deepEqual(clamped.body.relationship[0]._fields, { top: 0, left: 200, width: 200, height: 200 });
    const file = await sharp(join(uploadsDir(t), 'attachments', `${attachmentId}-wide.0.200.200.200.png`)).metadata();
    assert.deepEqual([file.width, file.height], [200, 200]);
    // x 40% is column 160: the 200 columns centred on it start at 60.
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 40, y: 50 } });
    const inside = await t.request('POST', autocropUrl, { body: { relationship: [{ _id: image._id }], widgetOptions: { aspectRatio: [1, 1] } } });
    assert.deepEqual(inside.body.relationship[0]._fields, { top: 0, left: 60, width: 200, height: 200 });
    // The focal point of the relationship's crop fields (a box of another ratio) wins over the attachment's.
    const own = await t.request('POST', autocropUrl, {
      body: { relationship: [{ _id: image._id, _fields: { top: 0, left: 0, width: 100, height: 50, x: 0, y: 0 } }], widgetOptions: { aspectRatio: [1, 1] } },
    });
    assert.deepEqual(own.body.relationship[0]._fields, { top: 0, left: 0, width: 200, height: 200 });
    assert.deepEqual(
      (await storedAttachment(t, attachmentId))!.crops,
      [{ top: 0, left: 200, width: 200, height: 200 }, { top: 0, left: 60, width: 200, height: 200 }, { top: 0, left: 0, width: 200, height: 200 }],
    );
  });

  it('a crop of the image keeps the focal point, and the attachment reached through a relationship shows it as _focalPoint', async () => {
    await setFocalPoint({ _id: attachmentId, focalPoint: { x: 75, y: 40 } });
    const box = { top: 20, left: 250, width: 100, height: 100 };
    const crop = await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: attachmentId, crop: box, annotate: true } });
    assert.equal(crop.status, 200, crop.text);
    assert.deepEqual(crop.body._crop, box);
    assert.deepEqual(crop.body.focalPoint, { x: 75, y: 40 });
    const file = await sharp(join(uploadsDir(t), 'attachments', `${attachmentId}-wide.20.250.100.100.png`)).metadata();
    assert.deepEqual([file.width, file.height], [100, 100]);
    const page = await t.request('POST', '/api/v1/page', { body: { title: 'Page', _image: [{ _id: image._id, _fields: box }] } });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body._image[0].attachment._focalPoint, { x: 75, y: 40 });
    assert.deepEqual(page.body._image[0].attachment._crop, box);
    const withOwn = await t.request('PATCH', `/api/v1/page/${page.body._id}`, { body: { _image: [{ _id: image._id, _fields: { ...box, x: 5, y: 6 } }] } });
    assert.equal(withOwn.status, 200, withOwn.text);
    assert.deepEqual(withOwn.body._image[0].attachment._focalPoint, { x: 5, y: 6 });
  });
});
