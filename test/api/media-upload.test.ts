import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { createSharpImageProcessor, type ImageProcessor } from '../../src/media/image-processor.js';
import { docIdPattern, isoDate, startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';
import {
  countAttachments,
  fetchRaw,
  listFiles,
  makeImage,
  makePdf,
  makeRotatedJpeg,
  md5,
  pathOf,
  pathOfUrl,
  sizeNames,
  upload,
  uploadsDir,
} from '../helpers/media.js';

const attachmentKeys = [
  '_id', '_isCroppable', '_url', '_urls', 'archivedDocIds', 'createdAt', 'crops', 'docIds', 'extension', 'group',
  'height', 'landscape', 'length', 'md5', 'name', 'portrait', 'title', 'type', 'updatedAt', 'width',
];

async function dimensions(path: string): Promise<{ width: number; height: number; format: string }> {
  const metadata = await sharp(path).metadata();
  return { width: metadata.width!, height: metadata.height!, format: metadata.format! };
}

describe('attachment upload', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('stores a PNG with every property of the interface and its six sizes', async () => {
    const png = await makeImage('png', 8, 8);
    const res = await upload(t, 'red8.png', png);
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    assert.deepEqual(Object.keys(a).sort(), attachmentKeys);
    assert.match(a._id, docIdPattern);
    assert.equal(a.type, 'attachment');
    assert.equal(a.group, 'images');
    assert.equal(a.extension, 'png');
    assert.equal(a.name, 'red8');
    assert.equal(a.title, 'red8');
    assert.equal(a.length, png.length);
    assert.equal(a.md5, md5(png));
    assert.equal(a.width, 8);
    assert.equal(a.height, 8);
    assert.equal(a.portrait, true, 'a square is portrait');
    assert.equal(a.landscape, false);
    assert.equal(a._isCroppable, true);
    assert.deepEqual(a.docIds, []);
    assert.deepEqual(a.archivedDocIds, []);
    assert.deepEqual(a.crops, []);
    assert.match(a.createdAt, isoDate);
    assert.equal(a.updatedAt, a.createdAt);
    const base = `http://cms.test/uploads/attachments/${a._id}-red8`;
    assert.equal(a._url, `${base}.png`);
    assert.deepEqual(a._urls, {
      max: `${base}.max.png`,
      full: `${base}.full.png`,
      'two-thirds': `${base}.two-thirds.png`,
      'one-half': `${base}.one-half.png`,
      'one-third': `${base}.one-third.png`,
      'one-sixth': `${base}.one-sixth.png`,
      original: `${base}.png`,
    });
    assert.deepEqual(await readFile(pathOfUrl(t, a._url)), png, 'the original is kept byte for byte');
    for (const size of sizeNames) {
      assert.deepEqual(await dimensions(pathOfUrl(t, a._urls[size])), { width: 8, height: 8, format: 'png' }, `${size} is never enlarged`);
    }
  });

  it('scales a large JPEG inside each size box and corrects .jpeg to jpg', async () => {
    const jpeg = await makeImage('jpeg', 2000, 1000);
    const a = (await upload(t, 'Big Photo.JPEG', jpeg)).body;
    assert.equal(a.extension, 'jpg');
    assert.equal(a.name, 'big-photo');
    assert.equal(a.title, 'big photo');
    assert.equal(a.landscape, true);
    assert.equal(a.portrait, false);
    assert.match(a._url, new RegExp(`/uploads/attachments/${a._id}-big-photo\\.jpg$`));
    const expected: Record<string, [number, number]> = {
      max: [1600, 800], full: [1140, 570], 'two-thirds': [760, 380], 'one-half': [570, 285], 'one-third': [380, 190], 'one-sixth': [190, 95],
    };
    for (const size of sizeNames) {
      const [width, height] = expected[size]!;
      assert.deepEqual(await dimensions(pathOfUrl(t, a._urls[size])), { width, height, format: 'jpeg' }, size);
    }
  });

  it('fits tall images inside the height of the narrow sizes', async () => {
    const a = (await upload(t, 'tall.png', await makeImage('png', 600, 1200))).body;
    assert.equal(a.portrait, true);
    assert.deepEqual(await dimensions(pathOfUrl(t, a._urls['one-half'])), { width: 350, height: 700, format: 'png' });
    assert.deepEqual(await dimensions(pathOfUrl(t, a._urls['one-third'])), { width: 350, height: 700, format: 'png' });
    assert.deepEqual(await dimensions(pathOfUrl(t, a._urls['one-sixth'])), { width: 175, height: 350, format: 'png' });
    assert.deepEqual(await dimensions(pathOfUrl(t, a._urls['two-thirds'])), { width: 380, height: 760, format: 'png' });
  });

  it('applies the EXIF orientation: upright size reported and written', async () => {
    const a = (await upload(t, 'phone.jpg', await makeRotatedJpeg(400, 200))).body;
    assert.equal(a.width, 200);
    assert.equal(a.height, 400);
    assert.equal(a.portrait, true);
    const sixth = await sharp(pathOfUrl(t, a._urls['one-sixth'])).metadata();
    assert.deepEqual([sixth.width, sixth.height], [175, 350]);
    assert.ok(sixth.orientation === undefined || sixth.orientation === 1, 'the sizes need no orientation tag');
  });

  it('keeps WebP and GIF in their own formats', async () => {
    for (const [format, extension] of [['webp', 'webp'], ['gif', 'gif']] as const) {
      const a = (await upload(t, `pic.${extension}`, await makeImage(format, 400, 200))).body;
      assert.equal(a.extension, extension);
      assert.equal(a.group, 'images');
      assert.deepEqual(await dimensions(pathOfUrl(t, a._urls['one-sixth'])), { width: 190, height: 95, format });
    }
  });

  it('keeps every frame of an animated GIF and reports the size of one frame', async () => {
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((color) => makeImage('png', 400, 200, color)));
    const gif = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    const a = (await upload(t, 'anim.gif', gif)).body;
    assert.deepEqual([a.width, a.height], [400, 200]);
    const sixth = await sharp(pathOfUrl(t, a._urls['one-sixth']), { animated: true }).metadata();
    assert.deepEqual([sixth.width, sixth.pageHeight, sixth.pages], [190, 95, 3]);
  });

  it('stores office files with a URL and no sizes', async () => {
    const files: [string, Buffer | string, string][] = [
      ['Report 2024.pdf', makePdf(), 'pdf'],
      ['notes.txt', 'plain words\nmore words\n', 'txt'],
      ['table.csv', 'a,b\n1,2\n', 'csv'],
      ['letter.docx', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(60, 1)]), 'docx'],
      ['sheet.xls', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(60, 1)]), 'xls'],
      ['memo.rtf', '{\\rtf1\\ansi hello}', 'rtf'],
    ];
    for (const [filename, content, extension] of files) {
      const res = await upload(t, filename, content);
      assert.equal(res.status, 200, `${filename}: ${res.text}`);
      const a = res.body;
      assert.equal(a.group, 'office');
      assert.equal(a.extension, extension);
      assert.equal(a._isCroppable, false);
      for (const key of ['_urls', 'width', 'height', 'landscape', 'portrait']) assert.equal(key in a, false, `${filename} has no ${key}`);
      assert.equal(a.length, Buffer.byteLength(content));
      assert.deepEqual(await readFile(pathOfUrl(t, a._url)), Buffer.from(content));
    }
    const pdf = (await upload(t, 'Report 2024.pdf', files[0]![1])).body;
    assert.equal(pdf.name, 'report-2024');
    assert.equal(pdf.title, 'report 2024');
  });

  it('accepts a clean SVG as an image that is served as uploaded', async () => {
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
      + '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient><style>.c { fill: #c33; stroke: url(#g) }</style></defs>'
      + '<rect id="r" class="c" width="10" height="10" fill="url(#g)" style="fill: url(\'#g\')"/><use xlink:href="#g"/><use href="#r" x="2"/>'
      + '<circle r="2"><animate attributeName="opacity" values="0;1" dur="2s" repeatCount="indefinite"/><set attributeName="fill" to="blue" begin="click"/></circle>'
      + '<a href="#top">x &amp; y</a></svg>';
    const res = await upload(t, 'logo.svg', svg);
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    assert.equal(a.group, 'images');
    assert.equal(a._isCroppable, false);
    assert.equal('width' in a, false);
    assert.deepEqual(Object.keys(a._urls).sort(), [...sizeNames, 'original'].sort());
    for (const url of Object.values(a._urls)) assert.equal(url, a._url, 'every size is the one file');
    assert.equal(a._url, `http://cms.test/uploads/attachments/${a._id}-logo.svg`);
    const served = await fetchRaw(t, pathOf(a._url));
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'image/svg+xml');
    assert.match(String(served.headers['content-security-policy']), /sandbox/);
    assert.equal(served.bytes.toString(), svg);
  });

  it('never takes a path from the file name', async () => {
    const png = await makeImage('png', 4, 4);
    const cases: [string, string][] = [
      ['../../../etc/passwd.png', 'passwd'],
      ['/absolute/path/photo.png', 'photo'],
      ['C:\\Users\\me\\My Photo.png', 'my-photo'],
      ['Ünïcödé naïve.png', 'unicode-naive'],
      ['!!!.png', 'file'],
      ['..png', 'file'],
      [`${'long-'.repeat(100)}name.png`, 'long-'.repeat(12) + 'long'],
    ];
    for (const [filename, name] of cases) {
      const res = await upload(t, filename, png);
      assert.equal(res.status, 200, `${filename}: ${res.text}`);
      assert.equal(res.body.name, name, filename);
      assert.ok(res.body.name.length <= 64);
      assert.equal(res.body._url, `http://cms.test/uploads/attachments/${res.body._id}-${name}.png`);
    }
    const files = await listFiles(uploadsDir(t));
    assert.ok(files.every((file) => file.startsWith('attachments/')), files.join(', '));
  });
});

describe('serving uploaded files', () => {
  let t: TestApp;
  let a: Record<string, any>;
  let png: Buffer;
  before(async () => {
    t = await startTestApp();
    png = await makeImage('png', 300, 200);
    a = (await upload(t, 'served.png', png)).body;
  });
  after(() => t.close());

  it('serves the original and the sizes with type, validators and immutable caching', async () => {
    const res = await fetchRaw(t, pathOf(a._url));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers.etag), /^"[0-9a-f]+-[0-9a-f]+"$/);
    assert.ok(!Number.isNaN(Date.parse(String(res.headers['last-modified']))));
    assert.equal(Number(res.headers['content-length']), png.length);
    assert.deepEqual(res.bytes, png);
    const sized = await fetchRaw(t, pathOf(a._urls['one-sixth']));
    assert.equal(sized.status, 200);
    assert.deepEqual((await sharp(sized.bytes).metadata()).width, 190);
  });

  it('answers HEAD without a body and conditional requests with 304', async () => {
    const head = await fetchRaw(t, pathOf(a._url), {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers['content-length']), png.length);
    assert.equal(head.bytes.length, 0);
    const first = await fetchRaw(t, pathOf(a._url));
    const byTag = await fetchRaw(t, pathOf(a._url), { 'if-none-match': String(first.headers.etag) });
    assert.equal(byTag.status, 304);
    assert.equal(byTag.bytes.length, 0);
    const byDate = await fetchRaw(t, pathOf(a._url), { 'if-modified-since': String(first.headers['last-modified']) });
    assert.equal(byDate.status, 304);
    const stale = await fetchRaw(t, pathOf(a._url), { 'if-none-match': '"other"' });
    assert.equal(stale.status, 200);
  });

  it('keeps the immutable caching for callers with credentials', async () => {
    const res = await t.request('GET', pathOf(a._url));
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  it('lists no directory and escapes nowhere', async () => {
    const paths = [
      '/uploads/', '/uploads/attachments', '/uploads/attachments/', '/uploads/.tmp/x', '/uploads/..%2Fcms.sqlite',
      '/uploads/attachments/..%2F..%2Fcms.sqlite', '/uploads/attachments/%2e%2e/%2e%2e/cms.sqlite', '/uploads/cms.sqlite',
      '/uploads/attachments/nothing-here.png', '/uploads/attachments/x%00.png', `/uploads/attachments/${a._id}-served.PNG`,
    ];
    for (const path of paths) {
      const res = await fetchRaw(t, path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.json(), { name: 'notfound', message: 'notfound', data: {} }, path);
    }
  });
});

describe('upload permissions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('lets contributors and above upload, and refuses others with the one error shape', async () => {
    const png = await makeImage('png', 2, 2);
    for (const key of ['contributor', 'editor'] as const) assert.equal((await upload(t, 'ok.png', png, { key })).status, 200, key);
    const before = await listFiles(uploadsDir(t));
    for (const key of ['guest', null] as const) {
      const res = await upload(t, 'no.png', png, { key });
      assert.equal(res.status, 403, String(key));
      assert.equal(res.body.name, 'forbidden');
      assert.equal(res.body.data.requiredRole, 'contributor');
      const expected = key === null ? /^Uploading a file needs an API key or a sign-in: send Authorization: ApiKey <key>/ : /^Uploading a file needs the contributor role or higher; this API key has guest$/;
      assert.match(res.body.message, expected);
    }
    assert.deepEqual(await listFiles(uploadsDir(t)), before);
    assert.equal(await countAttachments(t), 2);
  });
});

describe('the upload limit', () => {
  it('is configurable by CMS_UPLOAD_LIMIT, refuses larger files with 413 and leaves nothing', async () => {
    const t = await startTestApp(testConfig(), { CMS_UPLOAD_LIMIT: '1000' });
    try {
      assert.equal((await upload(t, 'fits.txt', 'x'.repeat(1000))).status, 200);
      const res = await upload(t, 'big.txt', 'x'.repeat(1001));
      assert.equal(res.status, 413, res.text);
      assert.equal(res.body.name, 'toolarge');
      assert.deepEqual(res.body.data, { limit: 1000 });
      const huge = await upload(t, 'huge.png', Buffer.alloc(200_000, 7));
      assert.equal(huge.status, 413);
      assert.equal(await countAttachments(t), 1);
      assert.equal((await listFiles(uploadsDir(t))).length, 1);
    } finally {
      await t.close();
    }
  });

  it('comes from uploadLimit in the configuration file', async () => {
    const t = await startTestApp({ ...testConfig(), uploadLimit: 10 });
    try {
      assert.equal((await upload(t, 'a.txt', '0123456789')).status, 200);
      assert.equal((await upload(t, 'b.txt', '0123456789a')).status, 413);
    } finally {
      await t.close();
    }
  });
});

/**
 * sharp's image processor, counting the calls in flight; the probe after `holdNextProbe` waits
 * until released, holding its upload inside its turn of image processing.
 */
function observedImageProcessor() {
  const real = createSharpImageProcessor();
  let hold: { entered(): void; released: Promise<void> } | null = null;
  let inFlight = 0;
  let most = 0;
  async function counted<T>(work: () => Promise<T>): Promise<T> {
    most = Math.max(most, ++inFlight);
    try {
      return await work();
    } finally {
      inFlight -= 1;
    }
  }
  const images: ImageProcessor = {
    probe: (path) =>
      counted(async () => {
        const held = hold;
        hold = null;
        if (held) {
          held.entered();
          await held.released;
        }
        return real.probe(path);
      }),
    render: (args) => counted(() => real.render(args)),
    removeMetadata: (args) => counted(() => real.removeMetadata(args)),
  };
  return {
    images,
    mostInFlight: () => most,
    holdNextProbe() {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const entered = new Promise<void>((resolve) => (hold = { entered: resolve, released }));
      return { entered, release };
    },
  };
}

/**
 * Runs `work` and answers the most sharp operations (pipelines and metadata reads) of this process
 * in flight at once, counted from the call to its settling. Not sharp.counters(): a finished
 * pipeline is taken off them only after its callback, by which time the next one may be queued.
 */
async function mostSharpPipelines(work: () => Promise<unknown>): Promise<number> {
  const prototype = sharp.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const names = ['toFile', 'toBuffer', 'metadata', 'stats'] as const;
  const originals = names.map((name) => prototype[name]!);
  let inFlight = 0;
  let most = 0;
  names.forEach((name, index) => {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      const result = originals[index]!.apply(this, args);
      if (!(result instanceof Promise)) return result;
      most = Math.max(most, ++inFlight);
      return result.finally(() => inFlight--);
    };
  });
  try {
    await work();
  } finally {
    names.forEach((name, index) => (prototype[name] = originals[index]!));
  }
  return most;
}

describe('the turns of image processing, all callers together', () => {
  let t: TestApp;
  let observed: ReturnType<typeof observedImageProcessor>;
  before(async () => {
    observed = observedImageProcessor();
    const limits = { CMS_LIMIT_IMAGE_PROCESSING_CONCURRENCY: '1', CMS_LIMIT_IMAGE_PROCESSING_QUEUE: '1' };
    t = await startTestApp(testConfig(), limits, { images: observed.images });
  });
  after(() => t.close());

  it('runs one sharp pipeline at a time for large images of two callers at once', async () => {
    // Larger than every size box: each of the six sizes is a resize.
    const [wide, tall] = await Promise.all([makeImage('png', 2400, 1800, '#a33'), makeImage('jpeg', 1800, 2400, '#3a3')]);
    let answers: TestResponse[] = [];
    const most = await mostSharpPipelines(async () => {
      answers = await Promise.all([upload(t, 'wide.png', wide, { key: 'editor' }), upload(t, 'tall.jpg', tall, { key: 'contributor' })]);
    });
    assert.deepEqual(answers.map((res) => res.status), [200, 200], answers.map((res) => res.text).join('\n'));
    assert.deepEqual(answers.map((res) => [res.body.width, res.body.height]), [[2400, 1800], [1800, 2400]]);
    assert.equal(most, 1, 'sharp pipelines queued or running at once');
    assert.equal(observed.mostInFlight(), 1, 'image operations at once');
  });

  it('refuses an upload past the queue with 503 while a file and /health are served', async () => {
    const png = await makeImage('png', 40, 30);
    const stored = (await upload(t, 'served.png', png)).body;
    const attachmentsBefore = await countAttachments(t);
    const hold = observed.holdNextProbe();
    const first = upload(t, 'first.png', png);
    await hold.entered;
    // The turn is taken: of the next two, one waits in the queue of one and the other is refused.
    const next = [upload(t, 'second.png', png), upload(t, 'third.png', png)];
    const refused = await Promise.race(next);
    assert.equal(refused.status, 503, refused.text);
    assert.deepEqual(refused.body, {
      name: 'unavailable',
      message: 'The server is processing as many images as it may; try again shortly.',
      data: { limit: 'imageProcessingQueue', retryAfter: 2 },
    });
    assert.equal(refused.headers['retry-after'], '2');

    // Everything else is answered while the turn is held and the queue full.
    const served = await fetchRaw(t, pathOf(stored._url));
    assert.equal(served.status, 200);
    assert.deepEqual(served.bytes, png);
    const health = await fetchRaw(t, '/health');
    assert.equal(health.status, 200);

    hold.release();
    const answers = await Promise.all([first, ...next]);
    assert.deepEqual(answers.map((res) => res.status).sort(), [200, 200, 503]);
    assert.equal(observed.mostInFlight(), 1);
    assert.equal(await countAttachments(t), attachmentsBefore + 2);
    assert.deepEqual(await listFiles(join(uploadsDir(t), '.tmp')), [], 'no work file is left');
  });
});
