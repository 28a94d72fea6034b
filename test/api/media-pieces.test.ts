import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/storage/sqlite/driver.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import { buildApp } from '../../src/app.js';
import { apiTestsOnPostgres, keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, makeImage, makePdf, multipartBody, pathOf, sizeNames, uploaded } from '../helpers/media.js';

const pdfBytes = makePdf();

describe('image and file pieces', () => {
  let t: TestApp;
  let png: Record<string, any>;
  let pdf: Record<string, any>;
  before(async () => {
    t = await startTestApp();
    png = await uploaded(t, 'red square.png', await makeImage('png', 64, 32));
    pdf = await uploaded(t, 'price list.pdf', pdfBytes);
  });
  after(() => t.close());

  it('creates an image piece from an upload, keeping the record and never what the client claims', async () => {
    const forged = { ...png, _url: 'http://evil.example/x.png', md5: 'forged', group: 'office', width: 1, extension: 'exe', docIds: ['x'] };
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Red square', attachment: forged } });
    assert.equal(res.status, 200, res.text);
    const doc = res.body;
    assert.equal(doc.slug, 'image-red-square');
    const a = doc.attachment;
    assert.equal(a._id, png._id);
    assert.equal(a.md5, png.md5);
    assert.equal(a.group, 'images');
    assert.equal(a.extension, 'png');
    assert.equal(a.width, 64);
    assert.equal(a.crop, null);
    assert.equal(a._url, png._url);
    assert.deepEqual(a._urls, png._urls);
    const docId = doc.cmsDocId;
    assert.deepEqual(a.docIds, [`${docId}:en:draft`, `${docId}:en:published`], 'both versions hold it (images autopublish)');
    assert.deepEqual(a.archivedDocIds, []);

    const anonymous = await t.request('GET', `/api/v1/@cms/image/${doc._id}`, { key: null });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.body.attachment._url, png._url);
    assert.deepEqual(anonymous.body.attachment._urls, png._urls);
    const list = await t.request('GET', '/api/v1/@cms/image', { key: null });
    assert.equal(list.body.results[0].attachment._id, png._id);
  });

  it('redirects the src of an image piece to one of its sizes, full by default, for anyone', async () => {
    const created = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Linked', attachment: { _id: png._id } } });
    assert.equal(created.status, 200, created.text);
    const src = `/api/v1/@cms/image/${created.body.cmsDocId}/src`;
    const full = await t.request('GET', src, { key: null });
    assert.equal(full.status, 302, full.text);
    assert.equal(full.headers.location, png._urls.full);
    const small = await t.request('GET', `${src}?size=one-sixth`, { key: null });
    assert.equal(small.headers.location, png._urls['one-sixth']);
    const original = await t.request('GET', `/api/v1/@cms/image/${created.body._id}/src?size=original`, { key: null });
    assert.equal(original.headers.location, png._url);

    const badSize = await t.request('GET', `${src}?size=huge`, { key: null });
    assert.equal(badSize.status, 400, badSize.text);
    assert.equal(badSize.body.name, 'invalid');
    const unknown = await t.request('GET', '/api/v1/@cms/image/nosuchimage/src', { key: null });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.name, 'notfound');
  });

  it('stores the record without URLs, so they are computed on every read', { skip: apiTestsOnPostgres && 'reads the SQLite file' }, async () => {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Stored', attachment: { _id: png._id } } });
    assert.equal(res.status, 200, res.text);
    const db = new Database(join(t.dataDir, 'cms.sqlite'), { readonly: true });
    try {
      const data = JSON.parse(db.prepare('SELECT data FROM documents WHERE id = ?').pluck().get(res.body._id) as string);
      assert.deepEqual(Object.keys(data.attachment).filter((key) => key.startsWith('_') && key !== '_id'), []);
      assert.equal(data.attachment.md5, png.md5);
    } finally {
      db.close();
    }
  });

  it('refuses an unknown, missing, malformed or non-image attachment, naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ _id: 'nosuchattachment0000000' }, 'invalid', /There is no attachment/],
      [undefined, 'required', /required/],
      [null, 'required', /required/],
      ['just-an-id', 'invalid', /must be an attachment/],
      [{ _id: '../x' }, 'invalid', /must be an attachment/],
      [{ _id: pdf._id }, 'invalid', /^File type pdf was not accepted. Allowed file groups: images$/],
    ];
    const before = (await t.request('GET', '/api/v1/@cms/image?count=1')).body.count;
    for (const [attachment, name, message] of cases) {
      const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Bad', attachment } });
      assert.equal(res.status, 400, `${JSON.stringify(attachment)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      const [error] = res.body.data.errors;
      assert.equal(error.path, 'attachment');
      assert.equal(error.name, name);
      assert.match(error.message, message);
    }
    assert.equal((await t.request('GET', '/api/v1/@cms/image?count=1')).body.count, before, 'nothing stored');
  });

  it('replaces and patches the attachment of an image piece', async () => {
    const other = await uploaded(t, 'other.webp', await makeImage('webp', 20, 20));
    const created = (await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Changing', attachment: png } })).body;
    const patched = await t.request('PATCH', `/api/v1/@cms/image/${created._id}`, { body: { attachment: { _id: other._id } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.attachment._id, other._id);
    assert.equal(patched.body.attachment.extension, 'webp');
    const put = await t.request('PUT', `/api/v1/@cms/image/${created._id}`, { body: { title: 'Changed', attachment: png } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.attachment._id, png._id);
    const bad = await t.request('PATCH', `/api/v1/@cms/image/${created._id}`, { body: { attachment: { _id: pdf._id } } });
    assert.equal(bad.status, 400);
  });

  it('gives a file piece the URL of its file', async () => {
    const res = await t.request('POST', '/api/v1/@cms/file', { body: { title: 'Price list', attachment: pdf, description: 'Prices' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.slug, 'file-price-list');
    assert.equal(res.body.attachment.group, 'office');
    assert.equal(res.body._url, pdf._url);
    assert.equal('_urls' in res.body.attachment, false);
    const anonymous = await t.request('GET', `/api/v1/@cms/file/${res.body._id}`, { key: null });
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.body._url, `http://cms.test/uploads/attachments/${pdf._id}-price-list.pdf`);
    const served = await fetchRaw(t, pathOf(anonymous.body._url));
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'application/pdf');
    assert.deepEqual(served.bytes, pdfBytes);
    const image = await t.request('POST', '/api/v1/@cms/file', { body: { title: 'An image file', attachment: png } });
    assert.equal(image.status, 200, 'a file piece takes any group');
  });

  it('holds one of the attachment\'s crops, whose files its URLs name', async () => {
    const box = { top: 4, left: 8, width: 16, height: 12 };
    assert.equal((await t.request('POST', '/api/v1/@cms/attachment/crop', { body: { _id: png._id, crop: box } })).body, true);
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Cropped', attachment: { _id: png._id, crop: box } } });
    assert.equal(res.status, 200, res.text);
    const a = res.body.attachment;
    assert.deepEqual(a.crop, box);
    assert.deepEqual(a.crops, [box]);
    const base = `http://cms.test/uploads/attachments/${png._id}-red-square.4.8.16.12`;
    assert.equal(a._url, `${base}.png`);
    for (const size of sizeNames) assert.equal(a._urls[size], `${base}.${size}.png`);
    for (const url of Object.values(a._urls) as string[]) assert.equal((await fetchRaw(t, pathOf(url))).status, 200, url);
    const other = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Bad crop', attachment: { _id: png._id, crop: { ...box, top: 5 } } } });
    assert.equal(other.status, 400);
    assert.equal(other.body.data.errors[0].path, 'attachment');
  });

  it('lets only editors write image pieces, as the original', async () => {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'By a contributor', attachment: png }, key: 'contributor' });
    assert.equal(res.status, 403);
  });
});

describe('attachment URLs follow the base URL', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cms-media-base-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  async function boot(baseUrl: string) {
    const config = await loadAppConfig({
      config: testConfig(),
      env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent', CMS_BASE_URL: baseUrl },
      cwd: dataDir,
    });
    return buildApp(config);
  }

  it('shows the URLs of the current configuration for files stored under another', async () => {
    const first = await boot('http://old.example');
    const form = multipartBody([{ name: 'file', filename: 'moved.png', content: await makeImage('png', 10, 10) }]);
    const headers = { authorization: `ApiKey ${keys.admin}`, 'content-type': form.contentType };
    const attachment = (await first.inject({ method: 'POST', url: '/api/v1/@cms/attachment/upload', headers, payload: form.payload })).json();
    assert.equal(attachment._url, `http://old.example/uploads/attachments/${attachment._id}-moved.png`);
    const created = await first.inject({
      method: 'POST',
      url: '/api/v1/@cms/image',
      headers: { authorization: `ApiKey ${keys.admin}` },
      payload: { title: 'Moved', attachment },
    });
    assert.equal(created.statusCode, 200, created.body);
    await first.close();

    const second = await boot('https://cdn.example/site');
    try {
      const read = (await second.inject({ method: 'GET', url: `/api/v1/@cms/image/${created.json()._id}` })).json();
      assert.equal(read.attachment._url, `https://cdn.example/site/uploads/attachments/${attachment._id}-moved.png`);
      assert.equal(read.attachment._urls.max, `https://cdn.example/site/uploads/attachments/${attachment._id}-moved.max.png`);
    } finally {
      await second.close();
    }
  });
});
