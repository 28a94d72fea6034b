import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { fetchRaw, makeImage, md5, pathOf, pathOfUrl, storedAttachment, upload } from '../helpers/media.js';

const secrets = ['Jane Owner', 'SN-4711-0815', 'LENS-99887', 'jane@example.com'];

// What a phone writes: owner, serial numbers, a GPS position (Paris), plus XMP naming the creator.
const exif = {
  IFD0: { Artist: 'Jane Owner', Copyright: 'Jane Owner', Make: 'PhoneCo', Model: 'P1' },
  IFD2: { CameraOwnerName: 'Jane Owner', BodySerialNumber: 'SN-4711-0815', LensSerialNumber: 'LENS-99887' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2959/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4020/100' },
};
const xmp =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>jane@example.com</dc:creator></rdf:Description>' +
  '</rdf:RDF></x:xmpmeta>';

/** An image stored `width`×`height` with the metadata above, an orientation and a Display P3 ICC profile. */
async function photo(format: 'jpeg' | 'png' | 'webp', width: number, height: number, orientation = 1): Promise<Buffer> {
  const encoded = await sharp({ create: { width, height, channels: 3, background: '#36c' } })
    .withExif(exif)
    .withXmp(xmp)
    .withIccProfile('p3')
    .withMetadata({ orientation })
    .toFormat(format)
    .toBuffer();
  // sharp writes no XMP into PNG: a text chunk carries the e-mail address there.
  const buffer = format === 'png' ? withPngText(encoded, 'Author', 'jane@example.com') : encoded;
  for (const secret of secrets) assert.ok(buffer.includes(secret), `the test image carries ${secret}`);
  return buffer;
}

/** The PNG with a `tEXt` chunk inserted after its header chunk. */
function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  return withPngChunk(png, 'tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));
}

/** The PNG with a chunk of this type and data inserted after its header chunk. */
function withPngChunk(png: Buffer, name: string, data: Buffer): Buffer {
  const type = Buffer.from(name, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  const afterHeader = 8 + 25; // signature, then IHDR: length, type, 13 bytes, CRC
  return Buffer.concat([png.subarray(0, afterHeader), length, type, data, crc, png.subarray(afterHeader)]);
}

/** A RIFF chunk: type, size, data, and the padding byte after data of odd length. */
function riffChunk(type: string, data: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data, Buffer.alloc(data.length % 2)]);
}

/** The chunks of a WebP (or of an animation frame's data from `start`), as type and data. */
function webpChunks(bytes: Buffer, start = 12): { type: string; data: Buffer }[] {
  const chunks: { type: string; data: Buffer }[] = [];
  for (let position = start; position + 8 <= bytes.length; ) {
    const length = bytes.readUInt32LE(position + 4);
    chunks.push({ type: bytes.toString('latin1', position, position + 4), data: bytes.subarray(position + 8, position + 8 + length) });
    position += 8 + length + (length % 2);
  }
  return chunks;
}

/** A WebP of these chunks, its RIFF size written to match. */
function webpOf(chunks: readonly { type: string; data: Buffer }[]): Buffer {
  const body = Buffer.concat([Buffer.from('WEBP'), ...chunks.map((chunk) => riffChunk(chunk.type, chunk.data))]);
  const header = Buffer.from('RIFF....');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

// A page a browser would run, were the file ever taken for HTML.
const page = Buffer.from('<html><script>alert(document.cookie)</script></html>');

function assertNoPage(bytes: Buffer, label: string): void {
  assert.equal(bytes.includes('<script>'), false, `${label}: the appended page is still there`);
}

function assertNoSecrets(bytes: Buffer, label: string): void {
  for (const secret of secrets) assert.equal(bytes.includes(secret), false, `${label} still holds ${secret}`);
}

describe('metadata of uploaded originals', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** Uploads, then checks the stored and the served original: no metadata, the record describes it. */
  async function uploadClean(filename: string, content: Buffer) {
    const res = await upload(t, filename, content);
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    const stored = await readFile(pathOfUrl(t, a._urls.original));
    const served = await fetchRaw(t, pathOf(a._url));
    assert.equal(served.status, 200);
    assert.deepEqual(served.bytes, stored, 'served as stored');
    assertNoSecrets(stored, filename);
    const metadata = await sharp(stored).metadata();
    assert.equal(metadata.exif, undefined, 'no EXIF block at all');
    assert.equal(metadata.xmp, undefined, 'no XMP');
    assert.ok(metadata.orientation === undefined || metadata.orientation === 1, 'stored upright');
    assert.equal(a.length, stored.length);
    assert.equal(a.md5, md5(stored));
    const record = await storedAttachment(t, a._id);
    assert.equal(record!.md5, md5(stored));
    assert.equal(record!.length, stored.length);
    return { a, stored, metadata };
  }

  it('removes GPS, owner and serial numbers from a JPEG and applies its orientation', async () => {
    const { a, metadata } = await uploadClean('phone.jpg', await photo('jpeg', 400, 200, 6));
    assert.deepEqual([a.width, a.height], [200, 400]);
    assert.deepEqual([metadata.width, metadata.height, metadata.format], [200, 400, 'jpeg'], 'the original is turned upright');
    assert.ok(metadata.icc, 'the colour profile is kept');
  });

  it('removes metadata from PNG and WebP originals too', async () => {
    const png = await uploadClean('scan.png', await photo('png', 60, 30));
    assert.deepEqual([png.metadata.width, png.metadata.height, png.metadata.format], [60, 30, 'png']);
    assert.equal(png.metadata.comments, undefined);
    const webp = await uploadClean('pic.webp', await photo('webp', 60, 30));
    assert.deepEqual([webp.metadata.width, webp.metadata.height, webp.metadata.format], [60, 30, 'webp']);
  });

  it('removes a JPEG comment segment', async () => {
    const jpeg = await makeImage('jpeg', 20, 20);
    const text = Buffer.from('Taken by Jane Owner');
    const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, text.length + 2]), text]);
    await uploadClean('commented.jpg', Buffer.concat([jpeg.subarray(0, 2), comment, jpeg.subarray(2)]));
  });

  it('keeps every frame of an animated GIF original', async () => {
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((color) => makeImage('png', 40, 20, color)));
    const gif = await sharp(frames, { join: { animated: true } }).gif({ loop: 0 }).toBuffer();
    const { stored } = await uploadClean('anim.gif', gif);
    const metadata = await sharp(stored, { animated: true }).metadata();
    assert.deepEqual([metadata.pages, metadata.width, metadata.pageHeight], [3, 40, 20]);
  });

  it('drops what follows the end of a JPEG, keeping the image byte for byte', async () => {
    const jpeg = await makeImage('jpeg', 20, 20);
    const { stored } = await uploadClean('appended.jpg', Buffer.concat([jpeg, page]));
    assertNoPage(stored, 'the JPEG');
    assert.deepEqual(stored, jpeg);
  });

  it('drops private chunks of a PNG and what follows its IEND, keeping the image byte for byte', async () => {
    const png = await makeImage('png', 30, 20);
    // scRp: ancillary, private, safe to copy; no decoder reads it.
    const { stored } = await uploadClean('private.png', withPngChunk(png, 'scRp', page));
    assertNoPage(stored, 'a private chunk');
    assert.deepEqual(stored, png);
    const after = await uploadClean('trailing.png', Buffer.concat([png, page]));
    assertNoPage(after.stored, 'the bytes after IEND');
    assert.deepEqual(after.stored, png);
  });

  it('drops unknown chunks of a WebP and what follows its RIFF, keeping the image byte for byte', async () => {
    const webp = await makeImage('webp', 30, 20);
    const withChunk = webpOf([...webpChunks(webp), { type: 'scRp', data: page }]);
    const { stored } = await uploadClean('private.webp', Buffer.concat([withChunk, page]));
    assertNoPage(stored, 'an unknown chunk or the bytes after the RIFF');
    assert.deepEqual(stored, webp);
  });

  it('drops unknown chunks of an animated WebP, inside its frames too, and an XMP chunk its header does not announce', async () => {
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((color) => makeImage('png', 40, 20, color)));
    const animated = await sharp(frames, { join: { animated: true } }).webp({ loop: 0 }).toBuffer();
    const chunks = webpChunks(animated);
    assert.deepEqual(chunks.map((chunk) => chunk.type), ['VP8X', 'ANIM', 'ANMF', 'ANMF', 'ANMF']);
    // Unknown chunks after the header and inside the first frame; XMP sharp does not see (no VP8X flag), but a reader would.
    const [header, animation, first, ...rest] = chunks;
    const frameWithChunk = { type: 'ANMF', data: Buffer.concat([first!.data, riffChunk('scRp', page)]) };
    const xmpChunk = { type: 'XMP ', data: Buffer.from(xmp) };
    const crafted = webpOf([header!, { type: 'scRp', data: page }, animation!, frameWithChunk, ...rest, xmpChunk]);
    assert.equal((await sharp(crafted, { animated: true }).metadata()).xmp, undefined, 'sharp does not see this XMP');
    const { stored } = await uploadClean('crafted.webp', crafted);
    assertNoPage(stored, 'the animated WebP');
    assert.deepEqual(stored, animated);
    assert.equal((await sharp(stored, { animated: true }).metadata()).pages, 3);
  });

  it('stores an image without metadata byte for byte', async () => {
    const png = await makeImage('png', 30, 20);
    const { a } = await uploadClean('plain.png', png);
    assert.equal(a.md5, md5(png));
  });
});
