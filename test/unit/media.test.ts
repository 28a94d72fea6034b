import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredAttachment } from '../../src/storage/storage-adapter.js';
import { attachmentName, attachmentTitle, fileKey, splitFilename } from '../../src/media/naming.js';
import { classifyExtension } from '../../src/media/file-groups.js';
import { contentMatches } from '../../src/media/sniff.js';
import { svgProblem } from '../../src/media/svg-check.js';
import { webpKnownChunks } from '../../src/media/webp-chunks.js';
import { assertInside, parseCropRequest } from '../../src/media/crop-request.js';
import { createLocalFileStorage } from '../../src/media/local-file-storage.js';
import { attachmentOutput } from '../../src/media/attachment-output.js';
import { RetryLaterError, ValidationError } from '../../src/errors/app-error.js';
import { UploadBudget } from '../../src/media/upload-budget.js';
import { WorkFiles, prepareWorkDir, staleWorkFileAge } from '../../src/media/work-files.js';

describe('file names', () => {
  it('splits off the last path segment and the extension', () => {
    assert.deepEqual(splitFilename('photo.JPG'), { base: 'photo', extension: 'JPG' });
    assert.deepEqual(splitFilename('../../a/b.c.png'), { base: 'b.c', extension: 'png' });
    assert.deepEqual(splitFilename('C:\\dir\\x.pdf'), { base: 'x', extension: 'pdf' });
    assert.deepEqual(splitFilename('a\u0000b\u001f.txt'), { base: 'ab', extension: 'txt' });
    assert.deepEqual(splitFilename('.bashrc'), { base: '.bashrc', extension: '' });
    assert.deepEqual(splitFilename('noext'), { base: 'noext', extension: '' });
    assert.deepEqual(splitFilename('dir/'), { base: '', extension: '' });
  });

  it('makes a bounded ASCII slug for the name and a sortified title', () => {
    assert.equal(attachmentName('Blue Box'), 'blue-box');
    assert.equal(attachmentName('Crème Brûlée'), 'creme-brulee');
    assert.equal(attachmentName('日本語'), 'file');
    assert.equal(attachmentName(''), 'file');
    assert.equal(attachmentName('a'.repeat(70)), 'a'.repeat(64));
    assert.equal(attachmentName(`${'a'.repeat(63)} b`), 'a'.repeat(63));
    assert.equal(attachmentTitle('Blue_Box (2)'), 'blue box 2');
    assert.equal(attachmentTitle('日本語'), '日本語');
    assert.equal(attachmentTitle('x'.repeat(300)).length, 200);
  });

  it('names every file of an attachment from its record', () => {
    const a = { _id: 'abc', name: 'pic', extension: 'png' };
    assert.equal(fileKey(a), 'attachments/abc-pic.png');
    assert.equal(fileKey(a, { size: 'one-half' }), 'attachments/abc-pic.one-half.png');
    assert.equal(fileKey(a, { crop: { top: 1, left: 2, width: 3, height: 4 } }), 'attachments/abc-pic.1.2.3.4.png');
    assert.equal(fileKey(a, { crop: { top: 1, left: 2, width: 3, height: 4 }, size: 'max' }), 'attachments/abc-pic.1.2.3.4.max.png');
  });
});

describe('file groups and content sniffing', () => {
  it('maps jpeg to jpg, ignores case and refuses the rest', () => {
    assert.deepEqual(classifyExtension('JPEG').extension, 'jpg');
    assert.equal(classifyExtension('Png').group.name, 'images');
    assert.equal(classifyExtension('pptx').group.name, 'office');
    assert.throws(() => classifyExtension('html'), /File type html was not accepted\. Allowed extensions: gif, jpg/);
    assert.throws(() => classifyExtension('jpe'), /not accepted/);
  });

  it('checks magic numbers and text', () => {
    const bytes = (...values: number[]) => Buffer.from(values);
    assert.equal(contentMatches('jpg', bytes(0xff, 0xd8, 0xff, 0xe0), false), true);
    assert.equal(contentMatches('jpg', bytes(0xff, 0xd8), false), false);
    assert.equal(contentMatches('png', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), false), true);
    assert.equal(contentMatches('gif', Buffer.from('GIF89a...'), false), true);
    assert.equal(contentMatches('gif', Buffer.from('GIF90a...'), false), false);
    assert.equal(contentMatches('webp', Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1'), false), true);
    assert.equal(contentMatches('webp', Buffer.from('RIFF\x00\x00\x00\x00WAVE', 'latin1'), false), false);
    assert.equal(contentMatches('pdf', Buffer.from('%PDF-1.7\n'), false), true);
    assert.equal(contentMatches('pdf', Buffer.from('%PDF-2.0\r'), false), true);
    assert.equal(contentMatches('pdf', Buffer.from('junk\n%PDF-1.7'), false), false, 'the header is at offset 0');
    assert.equal(contentMatches('pdf', Buffer.from('%PDF-1.17'), false), false);
    assert.equal(contentMatches('pdf', Buffer.from('%PS-Adobe'), false), false);
    assert.equal(contentMatches('xlsx', Buffer.from('PK\x03\x04', 'latin1'), false), true);
    assert.equal(contentMatches('xlsx', Buffer.from('PK\x05\x06', 'latin1'), false), false, 'an empty zip is no document');
    assert.equal(contentMatches('ppt', bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1), false), true);
    assert.equal(contentMatches('txt', Buffer.from('anything'), false), true);
    assert.equal(contentMatches('csv', Buffer.from('a,b'), true), false);
    assert.equal(contentMatches('exe', Buffer.from('MZ'), false), false);
  });
});

const svgOf = (inner: string, attributes = '') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attributes}>${inner}</svg>`;

describe('SVG check', () => {
  it('passes drawings and refuses active or external content', () => {
    const clean = svgOf('<g fill="url(#a)"><path d="M0 0h1"/></g><text>one = two &amp; on</text>');
    assert.equal(svgProblem(clean), null);
    assert.match(svgProblem(svgOf('<script/>'))!, /svg:script elements|script elements/);
    assert.match(svgProblem(svgOf('<g\tonclick="x"/>'))!, /attribute onclick/);
    assert.equal(svgProblem(svgOf('<rect><animate attributeName="opacity" values="0;1" dur="1s"/><set attributeName="fill" to="red"/></rect>')), null, 'animations of what is drawn');
    assert.match(svgProblem(svgOf('<rect><set attributeName=" On\u00a0Click" to="x()"/></rect>'))!, /animate event handlers/);
    assert.match(svgProblem(svgOf('<a href="#a"><set attributeName="xlink:href" to="javascript:x()"/></a>'))!, /animated links/);
    assert.equal(svgProblem(svgOf('<image href="data:image/png;base64,iVBOR+w0/=="/>')), null, 'an embedded bitmap');
    assert.match(svgProblem(svgOf('<image href="data:image/svg+xml;base64,AAAA"/>'))!, /links outside/);
    assert.match(svgProblem(svgOf("<use xlink:href='other.svg#x'/>"))!, /links outside/);
    assert.match(svgProblem(svgOf('<a href="  JavaScript:x">a</a>'))!, /links outside/);
    assert.match(svgProblem(svgOf('', ' style="background:url(//x)"'))!, /external references/);
    assert.match(svgProblem(svgOf('<rect fill="&#x75;rl(x)"/>'))!, /external references/, 'a character reference is read as the browser reads it');
    assert.match(svgProblem('<html></html>')!, /not an SVG/);
    assert.match(svgProblem('<svg><rect/></svg>')!, /not an SVG/, 'without the SVG namespace a browser does not draw it');
  });

  it('judges elements and attributes by namespace and local name, not by prefix', () => {
    const bypasses = [
      svgOf('<s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>'),
      '<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:script>alert(1)</s:script></s:svg>',
      svgOf('<h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example"/>'),
      svgOf('<x:foreignObject xmlns:x="http://www.w3.org/2000/svg"><div/></x:foreignObject>'),
      svgOf('<rect xmlns:e="http://www.w3.org/1999/xhtml" e:onclick="x()"/>'),
    ];
    for (const svg of bypasses) assert.match(svgProblem(svg)!, /are not accepted/, svg);
  });

  it('refuses CSS that loads anything: image-set, url(), @import, escapes', () => {
    const styles = [
      'fill: image-set("https://evil.example/x.png" 1x)',
      'fill: -webkit-image-set(url(x.png) 1x)',
      'fill: url( "https://evil.example" )',
      'fill: u\\72l(x)',
    ];
    for (const style of styles) assert.match(svgProblem(svgOf(`<rect style='${style}'/>`))!, /styles are not accepted/, style);
    assert.match(svgProblem(svgOf('<style>@import "x.css";</style>'))!, /imports/);
    assert.match(svgProblem(svgOf('<style><![CDATA[rect{background:image-set("//x" 1x)}]]></style>'))!, /external references/);
  });

  it('refuses entity declarations (billion laughs, external entities) and reads no DTD', () => {
    const laughs = `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>${svgOf('<text>&c;</text>')}`;
    assert.match(svgProblem(laughs)!, /document type declarations/);
    const external = `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svgOf('<text>&x;</text>')}`;
    assert.match(svgProblem(external)!, /document type declarations/);
    assert.match(svgProblem(svgOf('<text>&x;</text>'))!, /not well-formed/, 'an undeclared entity');
    const publicDtd = '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">';
    assert.equal(svgProblem(`<?xml version="1.0" encoding="UTF-8"?>\n${publicDtd}${svgOf('<rect/>')}`), null);
  });

  it('accepts what editors write: gradients, local use, plain styles, editor metadata', () => {
    const drawing = svgOf(
      [
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient>',
        '<style>.a { fill: #c33; stroke: url(#g) }</style></defs>',
        '<g class="a"><rect id="r" width="10" height="10"/></g><use href="#r" x="5"/><use xlink:href="#r"/>',
        '<sodipodi:namedview xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" pagecolor="#fff"/>',
        '<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""/></rdf:RDF></metadata>',
      ].join(''),
      ' viewBox="0 0 10 10"',
    );
    assert.equal(svgProblem(drawing), null);
  });

  it('refuses nesting beyond the bound and ill-formed files quickly', () => {
    assert.match(svgProblem(svgOf(`${'<g>'.repeat(300)}${'</g>'.repeat(300)}`))!, /nested deeper/);
    const attributes = Array.from({ length: 1001 }, (_, index) => `a${index}="1"`).join(' ');
    assert.match(svgProblem(svgOf(`<g ${attributes}/>`))!, /more than 1000 attributes/);
    const longName = svgProblem(svgOf(`<${'g'.repeat(100_000)}/>`))!;
    assert.ok(longName.length < 200, 'a refusal quotes a bounded part of a name');
    assert.ok(svgProblem(svgOf(`<x:a xmlns:x="${'u'.repeat(100_000)}" ${'x:b="1" '.repeat(2)}/>`))!.length < 300);
    const started = Date.now();
    assert.match(svgProblem(`<svg xmlns="http://www.w3.org/2000/svg">${'<a '.repeat(300_000)}`)!, /not well-formed/);
    assert.ok(Date.now() - started < 2000);
  });
});

/** A RIFF chunk: type, size, data and the padding byte after data of odd length. */
function riffChunk(type: string, data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  const header = Buffer.alloc(8);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(bytes.length, 4);
  return Buffer.concat([header, bytes, Buffer.alloc(bytes.length % 2)]);
}

function riff(...chunks: Buffer[]): Buffer {
  const header = Buffer.from('RIFF....WEBP');
  header.writeUInt32LE(4 + chunks.reduce((sum, chunk) => sum + chunk.length, 0), 4);
  return Buffer.concat([header, ...chunks]);
}

/** A VP8X header with these flags and a 1×1 canvas. */
const vp8x = (flags: number) => riffChunk('VP8X', Buffer.from([flags, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
const frameHeader = Buffer.alloc(16, 1);

describe('WebP chunks', () => {
  it('keeps image, profile and animation chunks, drops EXIF, XMP and unknown ones, and rewrites the sizes and flags', () => {
    const iccp = riffChunk('ICCP', 'profile');
    const anim = riffChunk('ANIM', Buffer.alloc(6));
    const image = riffChunk('VP8L', 'pixels!');
    const frame = (...inner: Buffer[]) => riffChunk('ANMF', Buffer.concat([frameHeader, ...inner]));
    // ICC, EXIF, XMP and animation announced.
    const crafted = riff(vp8x(0x2e), iccp, anim, frame(image, riffChunk('abcd', 'odd')), riffChunk('EXIF', 'GPS'), riffChunk('XMP ', 'jane'), riffChunk('zzzz', ''));
    const cleaned = webpKnownChunks(Buffer.concat([crafted, Buffer.from('trailing')]));
    assert.deepEqual(cleaned, { bytes: riff(vp8x(0x22), iccp, anim, frame(image)), dropped: true });
  });

  it('answers a file with nothing to drop unchanged and one it cannot walk as null', () => {
    const plain = riff(riffChunk('VP8 ', 'lossy'));
    assert.deepEqual(webpKnownChunks(plain), { bytes: plain, dropped: false });
    const animated = riff(vp8x(0x02), riffChunk('ANIM', Buffer.alloc(6)), riffChunk('ANMF', Buffer.concat([frameHeader, riffChunk('VP8 ', 'x')])));
    assert.deepEqual(webpKnownChunks(animated), { bytes: animated, dropped: false });
    const tooLong = Buffer.from(plain);
    tooLong.writeUInt32LE(plain.length, 4);
    assert.equal(webpKnownChunks(tooLong), null, 'a RIFF size past the end of the file');
    const chunkPastEnd = Buffer.from(plain);
    chunkPastEnd.writeUInt32LE(100, 16);
    assert.equal(webpKnownChunks(chunkPastEnd), null, 'a chunk past the end of the RIFF');
    assert.equal(webpKnownChunks(riff(vp8x(0), riffChunk('ANMF', 'short'))), null, 'a frame shorter than its header');
    assert.equal(webpKnownChunks(Buffer.from('RIFF')), null);
  });
});

describe('crop requests', () => {
  it('accepts whole pixel boxes and names every bad part', () => {
    assert.deepEqual(parseCropRequest({ _id: 'abc', crop: { top: 0, left: 1, width: 2, height: 3, extra: 1 } }), {
      id: 'abc',
      crop: { top: 0, left: 1, width: 2, height: 3 },
      annotate: false,
    });
    assert.equal(parseCropRequest({ _id: 'abc', crop: { top: 0, left: 1, width: 2, height: 3 }, annotate: true }).annotate, true);
    assert.throws(
      () => parseCropRequest({ _id: 'abc', crop: { top: -1, left: 0.5, width: 0, height: Number.NaN } }),
      (error: unknown) => error instanceof ValidationError && error.errors.map((e) => e.path).join() === 'crop.top,crop.left,crop.width,crop.height',
    );
    assert.throws(() => parseCropRequest(null), /must be an object/);
  });

  it('keeps the box inside the image', () => {
    const record = { width: 10, height: 5 } as StoredAttachment;
    assertInside({ top: 0, left: 0, width: 10, height: 5 }, record);
    assert.throws(() => assertInside({ top: 1, left: 0, width: 10, height: 5 }, record), /outside the 10×5 image/);
  });
});

describe('local file storage', () => {
  it('moves files in, serves and removes them, and refuses keys that could leave its root', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cms-files-'));
    try {
      const files = createLocalFileStorage({ root: join(dir, 'uploads'), publicUrl: () => 'https://x.test/uploads' });
      const local = join(dir, 'incoming');
      await writeFile(local, 'bytes');
      await files.put('attachments/a-b.txt', local);
      await assert.rejects(readFile(local), /ENOENT/);
      assert.equal((await files.stat('attachments/a-b.txt'))?.size, 5);
      assert.equal(files.url('attachments/a-b.txt'), 'https://x.test/uploads/attachments/a-b.txt');
      const chunks: Buffer[] = [];
      for await (const chunk of files.createReadStream('attachments/a-b.txt')) chunks.push(chunk as Buffer);
      assert.equal(Buffer.concat(chunks).toString(), 'bytes');
      await files.remove('attachments/a-b.txt');
      await files.remove('attachments/a-b.txt');
      assert.equal(await files.stat('attachments/a-b.txt'), null);
      assert.equal(await files.stat('attachments'), null, 'a directory is not a file');
      for (const key of ['../cms.sqlite', '/etc/passwd', 'attachments/../../x', '.tmp/x', 'attachments/.hidden', 'a\\b', '', 'a//b', 'a/']) {
        assert.equal(await files.stat(key), null, key);
        await assert.rejects(files.put(key, local), /Invalid file storage key/, key);
        await assert.rejects(files.remove(key), /Invalid file storage key/, key);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('local file storage: unreadable files', () => {
  async function contentOf(stream: AsyncIterable<unknown>): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString();
  }

  it('moves an unreadable file out of the served directory and back, and lists both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cms-files-'));
    try {
      const root = join(dir, 'uploads');
      const files = createLocalFileStorage({ root, privateRoot: join(dir, 'hidden'), publicUrl: () => '/uploads' });
      for (const [name, bytes] of [['a-one.txt', 'one'], ['b-two.txt', 'two!']]) {
        await writeFile(join(dir, name), bytes);
        await files.put(`attachments/${name}`, join(dir, name));
      }
      await writeFile(join(dir, 'outside'), 'x');
      await files.put('elsewhere/c-three.txt', join(dir, 'outside'));

      await files.setReadable('attachments/a-one.txt', false);
      await files.setReadable('attachments/a-one.txt', false);
      assert.equal(await files.stat('attachments/a-one.txt'), null, 'not there for the HTTP layer');
      await assert.rejects(contentOf(files.createReadStream('attachments/a-one.txt')), /ENOENT/);
      assert.deepEqual(await readdir(join(root, 'attachments')), ['b-two.txt'], 'nor for a web server serving the directory');
      assert.equal(await readFile(join(dir, 'hidden', 'attachments', 'a-one.txt'), 'utf8'), 'one');

      const listed: Record<string, number> = {};
      for await (const { key, info } of files.list('attachments/')) listed[key] = info.size;
      assert.deepEqual(listed, { 'attachments/a-one.txt': 3, 'attachments/b-two.txt': 4 }, 'readable or not, under the prefix only');

      await files.setReadable('attachments/a-one.txt', true);
      assert.equal(await contentOf(files.createReadStream('attachments/a-one.txt')), 'one');
      await files.setReadable('attachments/missing.txt', false);
      await files.setReadable('attachments/missing.txt', true);
      await assert.rejects(files.setReadable('../x', false), /Invalid file storage key/);

      await files.setReadable('attachments/b-two.txt', false);
      await files.remove('attachments/b-two.txt');
      assert.deepEqual(await readdir(join(dir, 'hidden', 'attachments')), [], 'remove takes an unreadable file too');
      // The work directory is hidden: never listed.
      await mkdir(join(root, '.tmp'));
      await writeFile(join(root, '.tmp', 'upload'), 'x');
      const keys: string[] = [];
      for await (const { key } of files.list('')) keys.push(key);
      assert.deepEqual(keys.sort(), ['attachments/a-one.txt', 'elsewhere/c-three.txt']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('attachment output', () => {
  const files = createLocalFileStorage({ root: '/unused', publicUrl: () => '/uploads' });
  const base = { _id: 'id1', type: 'attachment', name: 'n', title: 'n', length: 1, md5: 'm', crops: [], createdAt: '', updatedAt: '', docIds: [], archivedDocIds: [] } as const;

  it('gives images a URL per size and the original, SVG one file for all, others only _url', () => {
    const png = attachmentOutput(files, { ...base, group: 'images', extension: 'png', width: 1, height: 1 } as unknown as StoredAttachment);
    assert.equal(png._url, '/uploads/attachments/id1-n.png');
    assert.equal((png._urls as Record<string, string>)['one-third'], '/uploads/attachments/id1-n.one-third.png');
    assert.equal('crop' in png, false);
    const svg = attachmentOutput(files, { ...base, group: 'images', extension: 'svg' } as unknown as StoredAttachment);
    assert.ok(Object.values(svg._urls as object).every((url) => url === '/uploads/attachments/id1-n.svg'));
    const pdf = attachmentOutput(files, { ...base, group: 'office', extension: 'pdf' } as unknown as StoredAttachment, null);
    assert.equal(pdf._url, '/uploads/attachments/id1-n.pdf');
    assert.equal('_urls' in pdf, false);
    assert.equal(pdf.crop, null);
  });

  it('points at the cropped files when a crop is given', () => {
    const crop = { top: 1, left: 2, width: 3, height: 4 };
    const png = attachmentOutput(files, { ...base, group: 'images', extension: 'png', width: 9, height: 9 } as unknown as StoredAttachment, crop);
    assert.equal(png._url, '/uploads/attachments/id1-n.1.2.3.4.png');
    assert.equal((png._urls as Record<string, string>).max, '/uploads/attachments/id1-n.1.2.3.4.max.png');
    assert.deepEqual(png.crop, crop);
  });
});

describe('work files', () => {
  it('clears files stopped processes left, keeps those of running ones, and removes an operation\'s files when it ends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cms-work-'));
    try {
      await writeFile(join(dir, 'left-by-a-crash.upload'), 'x');
      await writeFile(join(dir, 'another-process.upload'), 'y');
      const old = new Date(Date.now() - staleWorkFileAge - 60_000);
      await utimes(join(dir, 'left-by-a-crash.upload'), old, old);
      await prepareWorkDir(dir);
      assert.deepEqual(await readdir(dir), ['another-process.upload']);
      await rm(join(dir, 'another-process.upload'));
      const work = new WorkFiles(dir);
      const first = work.path('upload');
      const second = work.path('max');
      assert.notEqual(first, second);
      assert.ok(first.startsWith(dir));
      await writeFile(first, 'a');
      await writeFile(second, 'b');
      await work.cleanup();
      assert.deepEqual(await readdir(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('upload budget', () => {
  it('counts bytes per caller in one-minute windows and says when to come back', () => {
    let now = 1_000_000;
    const budget = new UploadBudget({ bytesPerMinute: 100, inFlight: 2 }, () => now);
    const first = budget.begin('key:a');
    first.charge(60);
    first.release();
    now += 20_000;
    const second = budget.begin('key:a');
    assert.throws(() => second.charge(41), (error: unknown) => error instanceof RetryLaterError && error.retryAfter === 40);
    second.release();
    assert.throws(() => budget.begin('key:a'), RetryLaterError, 'spent until the window ends');
    budget.begin('key:b').release();
    now += 40_000;
    budget.begin('key:a').charge(100);
  });

  it('caps uploads at a time and frees a slot on release, once', () => {
    const budget = new UploadBudget({ bytesPerMinute: 1000, inFlight: 2 });
    const a = budget.begin('user:x');
    budget.begin('user:x');
    assert.throws(() => budget.begin('user:x'), (error: unknown) => error instanceof RetryLaterError && error.data.limit === 'uploadsInFlight');
    a.release();
    a.release();
    budget.begin('user:x');
    assert.throws(() => budget.begin('user:x'), RetryLaterError);
  });
});
