import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Transform, type Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import type { ScheduleKey, StorageAdapter } from '../../storage/storage-adapter.js';
import type { FileLocation, FileStorage, StoredFileInfo } from '../../media/file-storage.js';
import { attachmentKeys } from '../../media/attachment-output.js';
import type { Progress } from '../progress.js';
import {
  archiveFormat,
  archiveVersion,
  filePrefix,
  fileListingLine,
  fixedHeader,
  manifestName,
  type Manifest,
  type ManifestPart,
  type PartName,
  type ScheduleLine,
  type ShareLinkLine,
} from './archive-format.js';

// Rows read per query.
const pageSize = 500;

export interface ExportDeps {
  readonly storage: StorageAdapter;
  readonly files: FileStorage;
  readonly progress: Progress;
  /** Written into the manifest: which program made the archive. */
  readonly generator: string;
  /** Told about a file an attachment should have but the file store lacks. */
  readonly warn: (message: string) => void;
}

/**
 * Writes the whole store to one archive at `path` (see archive-format.ts), streamed: records go
 * through temporary files (a tar entry states its size first), files straight from the file
 * store. The archive appears at `path` only once complete. Answers the manifest.
 */
export async function exportArchive(deps: ExportDeps, path: string): Promise<Manifest> {
  const work = await mkdtemp(join(tmpdir(), 'cms-export-'));
  const partial = `${path}.partial`;
  try {
    const latest = { updatedAt: null as string | null };
    const parts: ManifestPart[] = [
      await writePart(work, 'documents.jsonl', documentLines(deps, latest)),
      await writePart(work, 'users.jsonl', userLines(deps)),
      await writePart(work, 'attachments.jsonl', attachmentLines(deps, latest)),
      await writePart(work, 'audit.jsonl', auditLines(deps)),
      await writePart(work, 'history.jsonl', historyLines(deps)),
      await writePart(work, 'share-links.jsonl', shareLinkLines(deps)),
      await writePart(work, 'schedules.jsonl', scheduleLines(deps)),
    ];
    const pack = tar.pack();
    const written = pipeline(pack, createGzip(), createWriteStream(partial));
    // The pipeline's failure (a full disk) ends the entries too; it is awaited below.
    written.catch(() => undefined);
    for (const part of parts) await addEntry(pack, part.name, part.bytes, createReadStream(join(work, part.name)));
    const files = await addFiles(deps, pack);
    const manifest: Manifest = { format: archiveFormat, version: archiveVersion, generator: deps.generator, dataAsOf: latest.updatedAt, parts, files };
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    pack.entry({ ...fixedHeader, name: manifestName, size: manifestBytes.length }, manifestBytes);
    pack.finalize();
    await written;
    await rename(partial, path);
    return manifest;
  } finally {
    await rm(partial, { force: true });
    await rm(work, { recursive: true, force: true });
  }
}

/** Writes lines to a temporary file of the part's name; answers its size, line count and SHA-256. */
async function writePart(work: string, name: PartName, lines: AsyncIterable<string>): Promise<ManifestPart> {
  const hash = createHash('sha256');
  let bytes = 0;
  let count = 0;
  const out = createWriteStream(join(work, name));
  for await (const line of lines) {
    const chunk = Buffer.from(line);
    hash.update(chunk);
    bytes += chunk.length;
    count++;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return { name, lines: count, bytes, sha256: hash.digest('hex') };
}

async function* documentLines(deps: ExportDeps, latest: { updatedAt: string | null }): AsyncGenerator<string> {
  const stage = deps.progress.stage('documents', { total: await deps.storage.documents.count({ type: null }) });
  for (let after: string | null = null; ; ) {
    const page = await deps.storage.documents.versionsAfter(null, after, pageSize);
    for (const doc of page) {
      noteLatest(latest, doc.updatedAt);
      yield `${JSON.stringify(doc)}\n`;
    }
    stage.add(page.length);
    if (page.length < pageSize) break;
    after = page.at(-1)!._id;
  }
  stage.done();
}

async function* userLines(deps: ExportDeps): AsyncGenerator<string> {
  const stage = deps.progress.stage('users');
  for (let after: string | null = null; ; ) {
    const page = await deps.storage.logins.loginsAfter(after, pageSize);
    for (const login of page) yield `${JSON.stringify(login)}\n`;
    stage.add(page.length);
    if (page.length < pageSize) break;
    after = page.at(-1)!.userId;
  }
  stage.done();
}

async function* attachmentLines(deps: ExportDeps, latest: { updatedAt: string | null }): AsyncGenerator<string> {
  const stage = deps.progress.stage('attachments');
  for await (const page of attachmentPages(deps.storage)) {
    for (const { attachment, readable, uploadedBy } of page) {
      noteLatest(latest, attachment.updatedAt);
      yield `${JSON.stringify({ ...attachment, readable, ...(uploadedBy !== undefined && { uploadedBy }) })}\n`;
    }
    stage.add(page.length);
  }
  stage.done();
}

/**
 * Every row of a read paged by key (`read(after, limit)`: the rows after `after`, in key order),
 * a page at a time, each as one line of JSON; `cursorOf` names where the next page starts.
 */
async function* keysetLines<Row, Cursor>(
  deps: ExportDeps,
  stageName: string,
  pages: { first: Cursor; read: (after: Cursor, limit: number) => Promise<readonly Row[]>; cursorOf: (row: Row) => Cursor },
  lineOf: (row: Row) => unknown,
): AsyncGenerator<string> {
  const stage = deps.progress.stage(stageName);
  for (let after = pages.first; ; ) {
    const page = await pages.read(after, pageSize);
    for (const row of page) yield `${JSON.stringify(lineOf(row))}\n`;
    stage.add(page.length);
    if (page.length < pageSize) break;
    after = pages.cursorOf(page.at(-1)!);
  }
  stage.done();
}

/** The audit trail in the order it was appended (oldest first). */
function auditLines(deps: ExportDeps): AsyncGenerator<string> {
  const { audit } = deps.storage;
  return keysetLines(deps, 'audit', { first: 0, read: (after, limit) => audit.after(after, limit), cursorOf: (row) => row.seq }, (row) => row.record);
}

/** Every history entry, content included, in the order appended (which orders those of one millisecond). */
function historyLines(deps: ExportDeps): AsyncGenerator<string> {
  const { history } = deps.storage;
  return keysetLines(deps, 'history', { first: 0, read: (after, limit) => history.entriesAfter(after, limit), cursorOf: (row) => row.seq }, (row) => row.entry);
}

/** Every preview link by id, live or expired: its key's digest, as the store keeps it (the key itself is nowhere). */
function shareLinkLines(deps: ExportDeps): AsyncGenerator<string> {
  const { shareLinks } = deps.storage;
  const pages = { first: null as string | null, read: (after: string | null, limit: number) => shareLinks.linksAfter(after, limit), cursorOf: (link: { id: string }) => link.id };
  return keysetLines(deps, 'share links', pages, (link): ShareLinkLine => ({ ...link, createdBy: JSON.parse(link.createdBy) as ShareLinkLine['createdBy'] }));
}

/** Every schedule by key, with its attempts and unreviewed change; its claim, if any, stays behind. */
function scheduleLines(deps: ExportDeps): AsyncGenerator<string> {
  const { schedules } = deps.storage;
  const pages = { first: null as ScheduleKey | null, read: (after: ScheduleKey | null, limit: number) => schedules.schedulesAfter(after, limit), cursorOf: (row: ScheduleKey) => row };
  return keysetLines(deps, 'schedules', pages, (schedule): ScheduleLine => {
    const { versionId, action, type, docId, locale, dueAt, status, attempts, unreviewedChange } = schedule;
    const by = JSON.parse(schedule.by) as ScheduleLine['by'];
    const change = unreviewedChange === null ? null : (JSON.parse(unreviewedChange) as ScheduleLine['unreviewedChange']);
    return { versionId, action, type, docId, locale, dueAt, by, status, attempts, unreviewedChange: change };
  });
}

/** Every attachment in `_id` order, a page at a time, with where its files are to be and were last put, and its uploader when known. */
async function* attachmentPages(storage: StorageAdapter) {
  for (let after: string | null = null; ; ) {
    const page = await storage.attachments.attachmentsAfter(after, pageSize);
    const ids = page.map((found) => found._id);
    const states = new Map((await storage.attachments.fileStates(ids)).map((state) => [state.id, state]));
    const uploaders = new Map((await storage.attachments.uploaders(ids)).map((known) => [known.id, known.uploadedBy]));
    yield page.map((attachment) => {
      const state = states.get(attachment._id);
      const uploadedBy = uploaders.get(attachment._id);
      return { attachment, readable: state?.readable ?? true, filesReadable: state?.filesReadable ?? true, uploadedBy };
    });
    if (page.length < pageSize) return;
    after = page.at(-1)!._id;
  }
}

/** Every file of every attachment, sorted by key (an attachment's keys sort between its `_id`'s neighbours'). */
async function addFiles(deps: ExportDeps, pack: tar.Pack): Promise<Manifest['files']> {
  const listing = createHash('sha256');
  let count = 0;
  let bytes = 0;
  const stage = deps.progress.stage('files', { unit: 'bytes' });
  for await (const page of attachmentPages(deps.storage)) {
    for (const { attachment, filesReadable } of page) {
      for (const key of [...attachmentKeys(attachment)].sort()) {
        const found = await locate(deps.files, key, filesReadable);
        if (!found) {
          deps.warn(`the file ${key} of attachment ${attachment._id} is missing from the file store: left out`);
          continue;
        }
        const hash = createHash('sha256');
        const counted = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            stage.add(chunk.length);
            callback(null, chunk);
          },
        });
        await addEntry(pack, filePrefix + key, found.info.size, deps.files.createReadStream(key, found.location).pipe(counted));
        listing.update(fileListingLine(key, found.info.size, hash.digest('hex')));
        count++;
        bytes += found.info.size;
      }
    }
  }
  stage.done();
  return { count, bytes, sha256: listing.digest('hex') };
}

/** Where a file is: where its record says it was last put, else on the other side (a move a crash interrupted). */
async function locate(files: FileStorage, key: string, readable: boolean): Promise<{ info: StoredFileInfo; location: FileLocation } | null> {
  for (const unreadable of readable ? [false, true] : [true, false]) {
    const info = await files.stat(key, { unreadable });
    if (info) return { info, location: { unreadable } };
  }
  return null;
}

/** One tar entry of `size` bytes from `source`; fails when the source gives another number of bytes. */
function addEntry(pack: tar.Pack, name: string, size: number, source: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const entry = pack.entry({ ...fixedHeader, name, size }, (error) => (error ? reject(error) : resolve()));
    source.once('error', (error) => {
      entry.destroy(error);
      reject(error);
    });
    source.pipe(entry);
  });
}

function noteLatest(latest: { updatedAt: string | null }, updatedAt: unknown): void {
  if (typeof updatedAt === 'string' && (latest.updatedAt === null || updatedAt > latest.updatedAt)) latest.updatedAt = updatedAt;
}
