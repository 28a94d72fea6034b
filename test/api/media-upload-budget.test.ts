import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';
import { countAttachments, listFiles, multipartBody, upload, uploadsDir } from '../helpers/media.js';

/** Stored files only: the work directory (`.tmp`) holds files while uploads run. */
async function storedFiles(t: TestApp): Promise<string[]> {
  return (await listFiles(uploadsDir(t))).filter((path) => !path.startsWith('.tmp'));
}

function assertTooMany(res: { status: number; headers: Record<string, unknown>; body: any; text?: string }, limit: string): number {
  assert.equal(res.status, 429, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name']);
  assert.equal(res.body.name, 'toomany');
  assert.equal(res.body.data.limit, limit);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${String(res.headers['retry-after'])}`);
  assert.equal(res.body.data.retryAfter, retryAfter);
  return retryAfter;
}

describe('upload budget per caller: bytes per minute', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(undefined, { CMS_LIMIT_UPLOAD_BYTES_PER_MINUTE: '5000' });
  });
  after(() => t.close());

  it('refuses the upload that goes past the budget with 429 and Retry-After, keeping only the accepted files', async () => {
    const file = 'x'.repeat(2000);
    assert.equal((await upload(t, 'one.txt', file, { key: 'contributor' })).status, 200);
    assert.equal((await upload(t, 'two.txt', file, { key: 'contributor' })).status, 200);
    const accepted = await storedFiles(t);
    assert.equal(accepted.length, 2);

    assertTooMany(await upload(t, 'three.txt', file, { key: 'contributor' }), 'uploadBytesPerMinute');
    // Spent now: the next is refused before a byte is read.
    assertTooMany(await upload(t, 'four.txt', 'tiny', { key: 'contributor' }), 'uploadBytesPerMinute');
    assert.deepEqual(await storedFiles(t), accepted);
    assert.deepEqual(await listFiles(join(uploadsDir(t), '.tmp')), [], 'no work file is left');
    assert.equal(await countAttachments(t), 2);
  });

  it('is per caller: another API key has its own budget', async () => {
    assert.equal((await upload(t, 'other.txt', 'x'.repeat(2000), { key: 'editor' })).status, 200);
  });
});

/** A multipart upload over a real socket whose file part is sent in two halves, the second when `finish` is called. */
function slowUpload(port: number, agent: Agent, content: string) {
  const body = multipartBody([{ name: 'file', filename: 'slow.txt', content }]);
  const cut = body.payload.length - 200;
  let finish!: () => void;
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        agent,
        method: 'POST',
        path: '/api/v1/@cms/attachment/upload',
        headers: { authorization: `ApiKey ${keys.contributor}`, 'content-type': body.contentType, 'content-length': body.payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.write(body.payload.subarray(0, cut));
    finish = () => req.end(body.payload.subarray(cut));
  });
  return { response, finish: () => finish() };
}

/** Posts a whole upload over a real socket; resolves with status, headers and body. */
function socketUpload(port: number, agent: Agent, content: string) {
  const body = multipartBody([{ name: 'file', filename: 'fast.txt', content }]);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        agent,
        method: 'POST',
        path: '/api/v1/@cms/attachment/upload',
        headers: { authorization: `ApiKey ${keys.contributor}`, 'content-type': body.contentType, 'content-length': body.payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(body.payload);
  });
}

describe('upload budget per caller: uploads at a time', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp(undefined, { CMS_LIMIT_UPLOADS_IN_FLIGHT: '1' });
    port = await t.listen();
  });
  after(() => t.close());

  it('refuses an upload beyond the cap while one runs, reading its body to the end, and accepts the next', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const slow = slowUpload(port, agent, 'a'.repeat(100_000));
      // The running upload is streaming into the work directory.
      while ((await listFiles(join(uploadsDir(t), '.tmp'))).length === 0) await sleep(5);

      // A megabyte body is answered with the 429, not a reset connection.
      const refused = await socketUpload(port, agent, 'b'.repeat(1_000_000));
      assertTooMany(refused, 'uploadsInFlight');
      assert.deepEqual(await storedFiles(t), []);

      slow.finish();
      assert.equal((await slow.response).status, 200);
      assert.equal((await socketUpload(port, agent, 'c')).status, 200, 'the slot is free again');
      assert.equal((await storedFiles(t)).length, 2);
      assert.equal(await countAttachments(t), 2);
    } finally {
      agent.destroy();
    }
  });
});
