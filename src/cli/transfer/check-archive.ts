import { createHash, type Hash } from 'node:crypto';
import type { AppConfig } from '../../content/app-config.js';
import type { DocumentIndexer } from '../../content/indexing/document-indexer.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../content/types/piece-type.js';
import { ValidationError } from '../../errors/app-error.js';
import { isValidFileKey } from '../../media/file-storage.js';
import { attachmentKeys } from '../../media/attachment-output.js';
import { attachmentIdOfKey } from '../../media/naming.js';
import { ArchiveError, archiveEntries, linesOf, type ArchiveEntry } from './archive-reader.js';
import {
  archiveFormat,
  allowedParts,
  attachmentLineSchema,
  compiledCheck,
  documentLineSchema,
  filePrefix,
  fileListingLine,
  manifestMaxBytes,
  manifestName,
  manifestSchema,
  partNames,
  optionalPartNames,
  auditLineSchema,
  historyLineSchema,
  readableVersions,
  requiredParts,
  scheduleLineSchema,
  shareLinkLineSchema,
  userLineSchema,
  type AttachmentLine,
  type HistoryLine,
  type ScheduleLine,
  type ShareLinkLine,
  type Manifest,
  type ManifestPart,
  type PartName,
} from './archive-format.js';

const checkDocument = compiledCheck(documentLineSchema);
const checkUser = compiledCheck(userLineSchema);
const checkAttachment = compiledCheck(attachmentLineSchema);
const checkAudit = compiledCheck(auditLineSchema);
const checkHistory = compiledCheck(historyLineSchema);
const checkShareLink = compiledCheck(shareLinkLineSchema);
const checkSchedule = compiledCheck(scheduleLineSchema);

/** The part an entry may be after `read` parts: the next, or past an optional one it is not (an older archive lacks it). */
function expectedPart(read: number, name: string): PartName | undefined {
  let index = read;
  while (partNames[index] !== undefined && partNames[index] !== name && optionalPartNames.includes(partNames[index]!)) index++;
  return partNames[index];
}
const checkManifest = compiledCheck(manifestSchema);

export interface CheckedArchive {
  readonly manifest: Manifest;
  /** The attachments whose files are kept unreadable (those only archived documents hold). */
  readonly unreadable: ReadonlySet<string>;
}

export interface CheckDeps {
  readonly config: Pick<AppConfig, 'pieceTypes' | 'limits'>;
  readonly indexer: DocumentIndexer;
  /** Launders a document version again as a write would have (`restoreDocument`); throws what it refuses. */
  readonly restore: (type: SanitizedPieceType, doc: StoredDocument) => void;
}

/**
 * Reads the whole archive once and writes nothing: entries in the format's order and nothing
 * else (no links, directories or other names), file keys a file store accepts, sizes within
 * the limits, every record a valid JSON object of its part's shape (every document of a
 * configured type, accepted by the laundering a write does, and indexable), and the manifest's format, version, counts and SHA-256
 * matching what was read. A wrong format or version is told first, then a checksum that does
 * not match (the archive was altered), then what a record has wrong.
 */
export async function checkArchive(deps: CheckDeps, path: string): Promise<CheckedArchive> {
  const state = new ArchiveCheck(deps);
  for await (const entry of archiveEntries(path)) await state.read(entry);
  return state.finish();
}

class ArchiveCheck {
  readonly #deps: CheckDeps;
  readonly #parts: ManifestPart[] = [];
  /** A file or the manifest came: no part may follow. */
  #partsDone = false;
  readonly #listing = createHash('sha256');
  readonly #files = { count: 0, bytes: 0, lastKey: '' };
  readonly #unreadable = new Set<string>();
  #manifest: unknown;
  /** What a record has wrong: told only once the manifest vouches for the bytes. */
  #recordProblem: string | null = null;

  constructor(deps: CheckDeps) {
    this.#deps = deps;
  }

  async read(entry: ArchiveEntry): Promise<void> {
    if (this.#manifest !== undefined) throw new ArchiveError(`the archive goes on after ${manifestName} (${JSON.stringify(entry.name)})`);
    if (entry.type !== 'file') throw new ArchiveError(`the entry ${JSON.stringify(entry.name)} is a ${entry.type}: an archive holds plain files only`);
    const nextPart = this.#partsDone ? undefined : expectedPart(this.#parts.length, entry.name);
    if (nextPart === undefined) this.#partsDone = true;
    if (entry.name === nextPart) this.#parts.push(await this.#readPart(nextPart, entry));
    else if (entry.name.startsWith(filePrefix) && nextPart === undefined) await this.#readFile(entry);
    else if (entry.name === manifestName && nextPart === undefined) this.#manifest = await readManifest(entry);
    else throw new ArchiveError(`unexpected entry ${JSON.stringify(entry.name)}: an archive holds ${partNames.join(', ')}, then files/…, then ${manifestName}, in that order`);
  }

  finish(): CheckedArchive {
    if (this.#manifest === undefined) throw new ArchiveError(`the archive has no ${manifestName}: it is truncated or not a cms archive`);
    const problem = checkManifest(this.#manifest);
    const found = this.#manifest as Partial<Manifest>;
    if (found.format !== archiveFormat) throw new ArchiveError(`${manifestName} does not describe a ${archiveFormat} archive`);
    if (!readableVersions.includes(found.version as number)) {
      throw new ArchiveError(`the archive has format version ${String(found.version)}; this cms reads versions ${readableVersions.join(' and ')}`);
    }
    if (problem) throw new ArchiveError(`${manifestName} is malformed: ${problem}`);
    const manifest = this.#manifest as Manifest;
    this.#checkPartsOfVersion(manifest);
    for (const [index, part] of this.#parts.entries()) {
      const listed = manifest.parts[index];
      if (!listed || listed.name !== part.name || listed.sha256 !== part.sha256 || listed.bytes !== part.bytes || listed.lines !== part.lines) {
        throw new ArchiveError(`${part.name} does not match its SHA-256 in ${manifestName}: the archive was damaged or altered`);
      }
    }
    const files = { count: this.#files.count, bytes: this.#files.bytes, sha256: this.#listing.digest('hex') };
    if (files.count !== manifest.files.count || files.bytes !== manifest.files.bytes || files.sha256 !== manifest.files.sha256) {
      throw new ArchiveError(`the files do not match their SHA-256 in ${manifestName}: the archive was damaged or altered`);
    }
    if (this.#recordProblem) throw new ArchiveError(this.#recordProblem);
    return { manifest, unreadable: this.#unreadable };
  }

  /** The parts read are those the manifest lists, and those its version holds. */
  #checkPartsOfVersion(manifest: Manifest): void {
    const read = this.#parts.map((part) => part.name);
    if (manifest.parts.length !== read.length) throw new ArchiveError(`${manifestName} lists other parts than the archive holds: the archive was damaged or altered`);
    const missing = requiredParts(manifest.version).find((name) => !read.includes(name));
    if (missing) throw new ArchiveError(`the archive (format version ${manifest.version}) lacks ${missing}`);
    const extra = read.find((name) => !allowedParts(manifest.version).includes(name));
    if (extra) throw new ArchiveError(`the archive (format version ${manifest.version}) may not hold ${extra}`);
  }

  async #readPart(name: PartName, entry: ArchiveEntry): Promise<ManifestPart> {
    const hash = createHash('sha256');
    const counted = { bytes: 0 };
    const checkLine = this.#lineChecker(name);
    let lines = 0;
    for await (const line of linesOf(hashed(entry.body, hash, counted), this.#deps.config.limits.archiveRecordBytes, name)) {
      lines++;
      if (this.#recordProblem) continue;
      const record = parseLine(line);
      const problem = record === undefined ? 'not JSON' : checkLine(record);
      if (problem) this.#recordProblem = `line ${lines} of ${name}: ${problem}`;
    }
    return { name, lines, bytes: counted.bytes, sha256: hash.digest('hex') };
  }

  /** The check of one record of a part; records come in strictly increasing id order (so none twice). */
  #lineChecker(name: PartName): (record: unknown) => string | null {
    let lastId = '';
    const inOrder = (id: string) => {
      if (id <= lastId) return `${JSON.stringify(id)} is out of order or repeated`;
      lastId = id;
      return null;
    };
    if (name === 'documents.jsonl') return (record) => checkDocument(record) ?? this.#documentProblem(record as StoredDocument) ?? inOrder((record as StoredDocument)._id);
    if (name === 'users.jsonl') return (record) => checkUser(record) ?? inOrder((record as { userId: string }).userId);
    // In the order appended (by time, not by id): a repeated id is refused by the store, in the import's transaction.
    if (name === 'audit.jsonl') return (record) => checkAudit(record);
    // In the order appended too (seq); a repeated id is refused by the store likewise.
    if (name === 'history.jsonl') return (record) => checkHistory(record) ?? historyProblem(record as HistoryLine);
    if (name === 'share-links.jsonl') return (record) => checkShareLink(record) ?? shareLinkProblem(record as ShareLinkLine) ?? inOrder((record as ShareLinkLine).id);
    if (name === 'schedules.jsonl') {
      // By draft id, then action: '\0' sorts before any character an id holds.
      return (record) => checkSchedule(record) ?? scheduleProblem(record as ScheduleLine) ?? inOrder(`${(record as ScheduleLine).versionId}\0${(record as ScheduleLine).action}`);
    }
    return (record) => checkAttachment(record) ?? this.#attachmentProblem(record as AttachmentLine) ?? inOrder((record as AttachmentLine)._id);
  }

  #documentProblem(doc: StoredDocument): string | null {
    const type = this.#deps.config.pieceTypes.get(doc.type);
    if (!type) return `the type ${JSON.stringify(doc.type)} is not in this configuration: import with the configuration the store was exported with`;
    const localized = doc.cmsLocale !== undefined || doc.cmsMode !== undefined;
    const expectedId = localized ? `${doc.cmsDocId}:${doc.cmsLocale}` : doc.cmsDocId;
    if (localized && doc.cmsLocale !== undefined && !doc.cmsLocale.endsWith(`:${doc.cmsMode}`)) return `cmsLocale and cmsMode of ${doc._id} disagree`;
    if (doc._id !== expectedId) return `the _id ${JSON.stringify(doc._id)} does not match its cmsDocId and cmsLocale`;
    try {
      this.#deps.restore(type, doc);
    } catch (error) {
      return `${doc._id} holds what a write refuses: ${problemOf(error)}`;
    }
    try {
      this.#deps.indexer.index(type, doc);
    } catch (error) {
      return `${doc._id} cannot be indexed: ${(error as Error).message}`;
    }
    return null;
  }

  #attachmentProblem(attachment: AttachmentLine): string | null {
    if (!attachmentKeys(attachment).every(isValidFileKey)) return `the attachment ${attachment._id} has no valid file names`;
    if (!attachment.readable) this.#unreadable.add(attachment._id);
    return null;
  }

  async #readFile(entry: ArchiveEntry): Promise<void> {
    const key = entry.name.slice(filePrefix.length);
    if (!isValidFileKey(key) || attachmentIdOfKey(key) === null) throw new ArchiveError(`the entry ${JSON.stringify(entry.name)} is not an attachment file's name`);
    if (key <= this.#files.lastKey) throw new ArchiveError(`the file ${key} is out of order or repeated`);
    const limit = this.#deps.config.limits.archiveFileBytes;
    if (entry.size > limit) throw new ArchiveError(`the file ${key} is larger than ${limit} bytes (limits.archiveFileBytes)`);
    this.#files.lastKey = key;
    const hash = createHash('sha256');
    for await (const _ of hashed(entry.body, hash, { bytes: 0 }));
    this.#listing.update(fileListingLine(key, entry.size, hash.digest('hex')));
    this.#files.count++;
    this.#files.bytes += entry.size;
  }
}

/*
 * What a record says of the document it belongs to must agree with itself; that the archive
 * holds that document is asked of the store in the import's transaction, once the documents are
 * in (records come in their own orders: a set of every document id would grow with the store).
 */
function historyProblem(entry: HistoryLine): string | null {
  return entry.versionId === `${entry.docId}:${entry.locale}:${entry.cmsMode}` ? null : `the versionId ${JSON.stringify(entry.versionId)} does not match its docId, locale and cmsMode`;
}

function shareLinkProblem(link: ShareLinkLine): string | null {
  return link.versionId.endsWith(':draft') ? null : `the preview link ${link.id} names ${JSON.stringify(link.versionId)}, which is not a draft`;
}

function scheduleProblem(schedule: ScheduleLine): string | null {
  return schedule.versionId === `${schedule.docId}:${schedule.locale}:draft` ? null : `the versionId ${JSON.stringify(schedule.versionId)} does not match its docId and locale`;
}

async function readManifest(entry: ArchiveEntry): Promise<unknown> {
  if (entry.size > manifestMaxBytes) throw new ArchiveError(`${manifestName} is larger than ${manifestMaxBytes} bytes`);
  const chunks: Buffer[] = [];
  for await (const chunk of entry.body) chunks.push(chunk);
  const parsed = parseLine(Buffer.concat(chunks).toString('utf8'));
  if (parsed === undefined) throw new ArchiveError(`${manifestName} is not JSON`);
  return parsed;
}

/** A refusal's message, with the field a validation error names. */
function problemOf(error: unknown): string {
  if (!(error instanceof ValidationError)) throw error;
  return error.errors.map((failure) => `${failure.path || '(the document)'}: ${failure.message ?? failure.name}`).join('; ');
}

/** The parsed JSON, or undefined when it is not JSON (the shape check then says so). */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** Passes the bytes through, adding them to `hash` and `counted`. */
export async function* hashed(source: AsyncIterable<Buffer>, hash: Hash, counted: { bytes: number }): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    hash.update(chunk);
    counted.bytes += chunk.length;
    yield chunk;
  }
}
