import fc from 'fast-check';
import { multipartBody } from './media.js';
import type { HostileRequest } from './hostile-requests.js';
import { type Json, nastyFilename, nastyNumber, nastyString, object, queryString, toJson } from './hostile-arbitraries.js';

/** Generators of hostile uploads (file names, contents, multipart structure) and crop requests. */

const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">${inner}</svg>`;

export interface FileProbes {
  /** A valid image to upload, and broken copies of it. */
  readonly png: Buffer;
  /** SVG scripts behind a namespace prefix must be refused (a hole being fixed elsewhere). */
  readonly svgNamespace: boolean;
  /** A PDF header after an HTML page must be refused (a hole being fixed elsewhere). */
  readonly pdfSniff: boolean;
}

/** File contents; those that must be refused carry the extension that claims them (an `.svg` with a script, a `.png` program). */
function fileContent(probes: FileProbes): fc.Arbitrary<{ content: Buffer | string; refusedAs?: string }> {
  const refused: [string, Buffer | string][] = [
    ['svg', svg('<script>alert(1)</script>')],
    ['svg', svg('<rect onload="alert(1)"/>')],
    ['svg', svg('<a href="https://evil.example/">x</a>')],
    ['png', Buffer.from('MZ\x90\x00 not a program')],
    ['pdf', '<html><script>alert(1)</script></html>'],
  ];
  if (probes.svgNamespace) {
    refused.push(
      ['svg', '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:script>alert(1)</svg:script></svg:svg>'],
      ['svg', svg('<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>')],
      ['svg', svg('<h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/"/>')],
    );
  }
  if (probes.pdfSniff) refused.push(['pdf', '<html><script>alert(1)</script></html>\n%PDF-1.4\n%%EOF\n']);
  const other: (Buffer | string)[] = [
    probes.png, probes.png.subarray(0, 40), Buffer.concat([probes.png.subarray(0, 16), Buffer.from('junk')]), 'plain text', 'text with a NUL \u0000 byte', svg('<rect width="2" height="2"/>'),
    '%PDF-1.4\n%%EOF\n', '', 'GIF89a', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]), Buffer.from('PK\x03\x04junk'), '{\\rtf1 x}',
  ];
  return fc.oneof(
    fc.constantFrom(...refused).map(([refusedAs, content]) => ({ content, refusedAs })),
    fc.constantFrom(...other).map((content) => ({ content })),
  );
}

/** A multipart upload with a hostile file name, and sometimes a hostile structure. */
export function uploadRequest(probes: FileProbes): fc.Arbitrary<{ request: Omit<HostileRequest, 'headers'> & { headers: Record<string, string> }; mustRefuse: boolean }> {
  return fc
    .record({
      filename: nastyFilename,
      file: fileContent(probes),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'other field', 'two files', 'no boundary', 'truncated', 'json type', 'no filename', 'junk fields'),
      query: fc.oneof(fc.constant(''), queryString),
    })
    .map(({ filename, file, shape, query }) => {
      const name = file.refusedAs ? `${filename}.${file.refusedAs}` : filename;
      const parts = [{ name: shape === 'other field' ? 'files' : 'file', filename: shape === 'no filename' ? undefined : name, content: file.content }];
      if (shape === 'two files') parts.push({ name: 'file', filename: 'second.txt', content: 'second' });
      if (shape === 'junk fields') parts.unshift({ name: '__proto__', filename: undefined, content: 'x'.repeat(70_000) });
      const body = multipartBody(parts);
      const bytes = shape === 'truncated' ? body.payload.subarray(0, body.payload.length - 10) : body.payload;
      const type = { 'no boundary': 'multipart/form-data', 'json type': 'application/json' }[shape as string] ?? body.contentType;
      return {
        request: { method: 'POST', path: '/api/v1/@cms/attachment/upload', query, headers: { 'content-type': type }, bytes, payload: `<${shape}: ${name}>` },
        mustRefuse: file.refusedAs !== undefined,
      };
    });
}

/** `{ _id, crop }` bodies: the attachment placeholder or junk, boxes of small, huge and odd numbers. */
export function cropBody(): fc.Arbitrary<string> {
  const box = fc.record({ top: fc.oneof(fc.nat(70), nastyNumber), left: fc.oneof(fc.nat(70), nastyNumber), width: fc.oneof(fc.integer({ min: 1, max: 70 }), nastyNumber), height: fc.oneof(fc.integer({ min: 1, max: 70 }), nastyNumber) }, { requiredKeys: [] });
  return fc
    .record({ _id: fc.oneof({ weight: 3, arbitrary: fc.constant('@@ATTACHMENT@@') }, { weight: 1, arbitrary: nastyString }), crop: fc.oneof({ weight: 3, arbitrary: box.map((b) => object(b as Record<string, Json>)) as fc.Arbitrary<Json> }, { weight: 1, arbitrary: nastyString as fc.Arbitrary<Json> }) })
    .map((body) => toJson(object(body)));
}
