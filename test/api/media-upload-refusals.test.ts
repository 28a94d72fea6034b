import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';
import { countAttachments, listFiles, makeImage, makePdf, multipartBody, postUpload, upload, uploadsDir } from '../helpers/media.js';
import type { StorageAdapter, StorageSession } from '../../src/storage/storage-adapter.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';

const allowed = 'gif, jpg, png, svg, webp, txt, rtf, pdf, xls, ppt, doc, pptx, sldx, ppsx, potx, xlsx, xltx, csv, docx, dotx';

/** Runs a request that must be refused, and checks that nothing was written: no file, no record. */
async function refused(t: TestApp, send: () => Promise<TestResponse>, status: number, message?: string | RegExp): Promise<TestResponse> {
  const filesBefore = await listFiles(uploadsDir(t));
  const recordsBefore = await countAttachments(t);
  const res = await send();
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name'], res.text);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else if (message) assert.match(res.body.message, message);
  assert.deepEqual(await listFiles(uploadsDir(t)), filesBefore, 'no file is left behind, temporary or not');
  assert.equal(await countAttachments(t), recordsBefore, 'no record is written');
  return res;
}

const svgOf = (inner: string, attributes = '') => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attributes}>${inner}</svg>`;

describe('refused uploads', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    // Something already stored, so "nothing changed" is checked against a non-empty directory.
    assert.equal((await upload(t, 'existing.png', await makeImage('png', 30, 30))).status, 200);
  });
  after(() => t.close());

  it('refuses an extension outside the file groups with the original message', async () => {
    const res = await refused(t, () => upload(t, 'setup.exe', 'MZ....'), 400, `File type exe was not accepted. Allowed extensions: ${allowed}`);
    assert.equal(res.body.name, 'invalid');
    assert.deepEqual(res.body.data, { extension: 'exe' });
    await refused(t, () => upload(t, 'README', 'text'), 400, /^File type \(none\) was not accepted/);
    await refused(t, () => upload(t, '.png', 'text'), 400, /^File type \(none\) was not accepted/);
  });

  it('refuses content that does not match the extension', async () => {
    const jpeg = await makeImage('jpeg', 10, 10);
    const cases: [string, Buffer | string][] = [
      ['photo.jpg', 'this is not a jpeg'],
      ['photo.png', jpeg],
      ['anim.gif', jpeg],
      ['pic.webp', 'RIFF....WEBX'],
      ['paper.pdf', 'not a pdf at all'],
      ['letter.docx', 'plain text pretending'],
      ['old.doc', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(20)])],
      ['old.xls', 'nope'],
      ['memo.rtf', 'no rtf header'],
      ['notes.txt', Buffer.from('text with a \u0000 NUL byte')],
      ['table.csv', Buffer.from([0x61, 0x2c, 0x00, 0x62])],
    ];
    for (const [filename, content] of cases) {
      await refused(t, () => upload(t, filename, content), 400, /^The file's content is not/);
    }
  });

  it('refuses an image whose data breaks after a valid header, removing the sizes already written', async () => {
    const jpeg = await makeImage('jpeg', 800, 600, '#123456');
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
    await refused(t, () => upload(t, 'broken.jpg', truncated), 400);
    const png = await makeImage('png', 800, 600);
    await refused(t, () => upload(t, 'broken.png', Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 0x41)])), 400);
  });

  it('accepts a real PDF and refuses files that only look like one', async () => {
    const pdf = makePdf();
    assert.equal((await upload(t, 'real.pdf', pdf)).status, 200);
    const text = pdf.toString('latin1');
    const cases: [string, Buffer | string][] = [
      ['mentions-the-header.pdf', `This is a text file.\n%PDF-1.4 appears here.\n${'filler '.repeat(20)}`],
      ['junk-before-header.pdf', `<html><script>alert(1)</script></html>\n${text}`],
      ['header-only.pdf', '%PDF-1.7\nnothing else at all\n'],
      ['truncated.pdf', pdf.subarray(0, Math.floor(pdf.length * 0.7))],
      ['no-startxref.pdf', text.replace(/startxref\n\d+\n/, '')],
      ['startxref-past-end.pdf', text.replace(/startxref\n\d+/, 'startxref\n999999')],
      ['startxref-into-nothing.pdf', text.replace(/startxref\n\d+/, 'startxref\n3')],
    ];
    for (const [filename, content] of cases) {
      await refused(t, () => upload(t, filename, content), 400, /^The file's content is not (that of a pdf file|a pdf)/);
    }
  });

  it('refuses an empty file', async () => {
    await refused(t, () => upload(t, 'empty.txt', ''), 400, 'The file is empty');
    await refused(t, () => upload(t, 'empty.png', Buffer.alloc(0)), 400, 'The file is empty');
  });

  it('refuses a form without a part named file', async () => {
    const message = 'Send the file in the multipart form part named "file"';
    await refused(t, () => upload(t, 'a.png', 'x', { field: 'upload' }), 400, message);
    const fieldsOnly = multipartBody([{ name: 'file', content: 'not a file part' }]);
    await refused(t, () => postUpload(t, fieldsOnly.payload, { contentType: fieldsOnly.contentType }), 400, message);
    const empty = multipartBody([]);
    await refused(t, () => postUpload(t, empty.payload, { contentType: empty.contentType }), 400, message);
  });

  it('answers 415 to a request that is not multipart', async () => {
    await refused(t, () => postUpload(t, JSON.stringify({ file: 'x' }), { contentType: 'application/json' }), 415);
    await refused(t, () => postUpload(t, 'file=x', { contentType: 'text/plain' }), 415);
    await refused(t, () => postUpload(t, ''), 415);
  });

  it('keeps multipart to the upload route: other routes answer 415', async () => {
    const form = multipartBody([{ name: 'title', content: 'x' }]);
    for (const url of ['/api/v1/article', '/api/v1/@cms/attachment/crop']) {
      const res = await t.app.inject({ method: 'POST', url, headers: { authorization: `ApiKey ${keys.admin}`, 'content-type': form.contentType }, payload: form.payload });
      assert.equal(res.statusCode, 415, url);
      assert.equal(res.json().name, 'unsupported');
    }
  });

  it('answers 400 to malformed multipart data', async () => {
    const body = multipartBody([{ name: 'file', filename: 'a.txt', content: 'hello' }]);
    const cut = body.payload.subarray(0, body.payload.length - 30);
    await refused(t, () => postUpload(t, cut, { contentType: body.contentType }), 400);
    await refused(t, () => postUpload(t, body.payload, { contentType: 'multipart/form-data' }), 400, /malformed/);
  });

  it('ignores form fields, prototype names included', async () => {
    const form = multipartBody([{ name: '__proto__', content: 'x' }, { name: 'title', content: 'y' }, { name: 'file', filename: 'a.txt', content: 'x' }]);
    const res = await postUpload(t, form.payload, { contentType: form.contentType });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'a');
    assert.equal(Object.hasOwn(res.body, 'title') && res.body.title, 'a');
  });

  it('refuses SVG files that could run script or reach outside', async () => {
    const dangerous: [string, string][] = [
      ['script', svgOf('<script>alert(1)</script>')],
      ['uppercase script', svgOf('<SCRIPT>alert(1)</SCRIPT>')],
      ['event handler', svgOf('<rect width="1" height="1"/>', ' onload="alert(1)"')],
      ['event handler on a child', svgOf('<circle r="1"\n  onmouseover = "x()"/>')],
      ['foreignObject', svgOf('<foreignObject><div>html</div></foreignObject>')],
      ['javascript link', svgOf('<a href="javascript:alert(1)">x</a>')],
      ['external link', svgOf('<a href="https://evil.example/">x</a>')],
      ['external image', svgOf('<image xlink:href="http://evil.example/x.png" width="1" height="1"/>')],
      ['unquoted external use', svgOf('<use href=//evil.example/s.svg#a />')],
      ['external style url', svgOf('<rect style="fill: url(http://evil.example/x)"/>')],
      ['style import', svgOf('<style>@import "http://evil.example/x.css";</style>')],
      ['entity declaration', `<!DOCTYPE svg [<!ENTITY x "y">]>${svgOf('<text>&x;</text>')}`],
      ['encoded attribute', svgOf('<a href="&#106;avascript:alert(1)">x</a>')],
      ['animated link', svgOf('<a href="#a"><set attributeName="href" to="https://evil.example"/></a>')],
      ['animated javascript link', svgOf('<a xlink:href="#a"><animate attributeName=" XLink:HREF " values="javascript:alert(1)"/></a>')],
      ['animation of a javascript link', svgOf('<animateMotion href="javascript:alert(1)" dur="1s"/>')],
      ['animated event handler', svgOf('<rect width="1" height="1"><set attributeName="onclick" to="alert(1)"/></rect>')],
      ['animated event handler in capitals', svgOf('<rect><animate attributeName="ONMOUSEOVER" values="alert(1)"/></rect>')],
      ['animated event handler with spaces', svgOf('<rect><animate attributeName="\n on\tload " to="alert(1)"/></rect>')],
      ['animated event handler by reference', svgOf('<rect><set attributeName="&#x6F;n&#99;lick" to="alert(1)"/></rect>')],
      ['animated prefixed event handler', svgOf('<g><animateTransform attributeName="svg:onfocus" to="alert(1)"/></g>')],
      ['animated event handler of the root', svgOf('<animateMotion attributeName="onbegin" to="alert(1)"/><set attributeName="onload" to="alert(1)"/>')],
      ['embedded html', svgOf('<iframe src="https://evil.example"></iframe>')],
      ['style sheet instruction', `<?xml-stylesheet href="http://evil.example/x.css"?>${svgOf('')}`],
      ['not an svg', '<html><body>hello</body></html>'],
      ['prefixed script', svgOf('<s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>')],
      ['prefixed iframe', svgOf('<h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example"/>')],
      ['prefixed foreignObject', svgOf('<x:foreignObject xmlns:x="http://www.w3.org/2000/svg"><div/></x:foreignObject>')],
      ['css image-set', svgOf('<rect style="fill: image-set(\'https://evil.example/x.png\' 1x)"/>')],
      ['billion laughs', `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${svgOf('<text>&b;</text>')}`],
      ['external entity', `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svgOf('<text>&x;</text>')}`],
    ];
    for (const [label, svg] of dangerous) {
      const res = await refused(t, () => upload(t, `${label.replace(/ /g, '-')}.svg`, svg), 400);
      assert.match(res.body.message, /^File was not accepted: /, label);
    }
  });
});

describe('an upload whose record cannot be written', () => {
  it('removes the files it had moved into place', async () => {
    let failInsert = false;
    // The record is written in a transaction (with its audit record): its session's insert fails.
    const failing = (session: StorageSession): StorageSession => ({
      ...session,
      attachments: {
        ...session.attachments,
        insert: async (record, uploadedBy) => {
          if (failInsert) throw new Error('the disk is full');
          return session.attachments.insert(record, uploadedBy);
        },
      },
    });
    const wrapStorage = (adapter: StorageAdapter): StorageAdapter => ({
      ...adapter,
      ...failing(adapter),
      transaction: withOptionalOptions((options, work) => adapter.transaction(options, (tx) => work(failing(tx)))),
    });
    const t = await startTestApp(testConfig(), {}, { wrapStorage });
    try {
      assert.equal((await upload(t, 'first.png', await makeImage('png', 20, 20))).status, 200);
      const before = await listFiles(uploadsDir(t));
      failInsert = true;
      const res = await upload(t, 'second.png', await makeImage('png', 20, 20));
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { name: 'error', message: 'An error occurred.', data: {} });
      assert.deepEqual(await listFiles(uploadsDir(t)), before);
      assert.equal(await countAttachments(t), 1);
      const uploads = await t.request('GET', '/api/v1/@cms/audit?action=attachment.upload');
      assert.equal(uploads.body.results.length, 1, 'no record of the upload that failed');
    } finally {
      await t.close();
    }
  });
});
