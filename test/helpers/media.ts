import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import Database from '../../src/storage/sqlite/driver.js';
import pg from 'pg';
import sharp from 'sharp';
import { keys, type TestApp, type TestResponse } from './test-app.js';

export interface FormPart {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly content: Buffer | string;
}

/** A multipart/form-data body, written by hand so tests control every byte. */
export function multipartBody(parts: readonly FormPart[], boundary = 'cms-test-boundary-7d93b2'): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : `\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function toResponse(response: { statusCode: number; headers: TestResponse['headers']; body: string }): TestResponse {
  let body: unknown;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text: response.body, body };
}

/** POSTs a raw body to the upload route with the given key (admin by default). */
export async function postUpload(
  t: TestApp,
  payload: Buffer | string,
  options: { contentType?: string; key?: keyof typeof keys | null } = {},
): Promise<TestResponse> {
  const key = options.key === undefined ? 'admin' : options.key;
  const headers: Record<string, string> = {};
  if (options.contentType) headers['content-type'] = options.contentType;
  if (key) headers.authorization = `ApiKey ${keys[key]}`;
  const response = await t.app.inject({ method: 'POST', url: '/api/v1/@cms/attachment/upload', headers, payload });
  return toResponse(response);
}

/** Uploads one file in the part named `file`. */
export async function upload(
  t: TestApp,
  filename: string,
  content: Buffer | string,
  options: { key?: keyof typeof keys | null; field?: string } = {},
): Promise<TestResponse> {
  const body = multipartBody([{ name: options.field ?? 'file', filename, content }]);
  return postUpload(t, body.payload, { contentType: body.contentType, key: options.key });
}

/** Uploads and asserts success; returns the attachment. */
export async function uploaded(t: TestApp, filename: string, content: Buffer | string): Promise<Record<string, any>> {
  const response = await upload(t, filename, content);
  if (response.status !== 200) throw new Error(`upload of ${filename} failed: ${response.status} ${response.text}`);
  return response.body;
}

/** GET without credentials, raw body kept as bytes. */
export async function fetchRaw(t: TestApp, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const response = await t.app.inject({ method, url, headers });
  return { status: response.statusCode, headers: response.headers, bytes: response.rawPayload, json: () => JSON.parse(response.body) };
}

type Format = 'jpeg' | 'png' | 'webp' | 'gif';

/** A solid image of the given size and format, made with sharp. */
export async function makeImage(format: Format, width: number, height: number, color = '#c33'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).toFormat(format).toBuffer();
}

/** A JPEG stored sideways, with the EXIF orientation that says to turn it 90° clockwise. */
export async function makeRotatedJpeg(storedWidth: number, storedHeight: number): Promise<Buffer> {
  return sharp({ create: { width: storedWidth, height: storedHeight, channels: 3, background: '#36c' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** A PNG whose left half is red and right half blue. */
export async function makeHalvesPng(width: number, height: number): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const blue = await sharp({ create: { width: width - half, height, channels: 3, background: '#00f' } }).png().toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#f00' } })
    .composite([{ input: blue, left: half, top: 0 }])
    .png()
    .toBuffer();
}

export function md5(bytes: Buffer | string): string {
  return createHash('md5').update(bytes).digest('hex');
}

/** Every file under `dir`, as sorted relative paths (directories themselves are not listed). */
export async function listFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export function uploadsDir(t: TestApp): string {
  return join(t.dataDir, 'uploads');
}

/**
 * Rows of the app's attachments table, read through a connection of its own (never the app's),
 * from the SQLite file or the PostgreSQL schema the app stores in.
 */
async function attachmentRows(t: TestApp, id?: string): Promise<{ data: unknown }[]> {
  if (t.databaseUrl.startsWith('sqlite:')) {
    const db = new Database(t.databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      const rows = db.prepare(`SELECT data FROM attachments${id === undefined ? '' : ' WHERE id = ?'}`).all(...(id === undefined ? [] : [id]));
      return (rows as { data: string }[]).map((row) => ({ data: JSON.parse(row.data) }));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    const sql = `SELECT data FROM attachments${id === undefined ? '' : ' WHERE id = $1'}`;
    const { rows } = await client.query<{ data: unknown }>(sql, id === undefined ? [] : [id]);
    return rows.map((row) => ({ data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data }));
  } finally {
    await client.end();
  }
}

/** How many attachment records the app's store holds. */
export async function countAttachments(t: TestApp): Promise<number> {
  return (await attachmentRows(t)).length;
}

/** The disk path of a served URL (`<baseUrl>/uploads/<key>`). */
export function pathOfUrl(t: TestApp, url: string): string {
  const key = url.slice(url.indexOf('/uploads/') + '/uploads/'.length);
  return join(uploadsDir(t), key);
}

/** The path part of an absolute URL, for inject. */
export function pathOf(url: string): string {
  return url.replace(/^https?:\/\/[^/]+/, '');
}

export const sizeNames = ['max', 'full', 'two-thirds', 'one-half', 'one-third', 'one-sixth'] as const;

/** The stored record of an attachment, read through a separate connection. */
export async function storedAttachment(t: TestApp, id: string): Promise<Record<string, any> | undefined> {
  const [row] = await attachmentRows(t, id);
  return row?.data as Record<string, any> | undefined;
}

/** A minimal valid one-page PDF, written byte by byte: objects, a cross-reference table with their offsets, a trailer. */
export function makePdf(text = 'Hello'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>',
  ];
  const stream = `BT /F1 12 Tf 10 50 Td (${text}) Tj ET`;
  objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
