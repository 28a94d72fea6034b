import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '../../content/app-config.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import { DocumentIndexer } from '../../content/indexing/document-indexer.js';
import { restoreDocument } from '../../content/documents/restore-document.js';
import type { SanitizedPieceType } from '../../content/types/piece-type.js';
import type { AuditRecord, StorageSession, StorageAdapter, StoredDocument, UserLogin } from '../../storage/storage-adapter.js';
import type { FileStorage } from '../../media/file-storage.js';
import { attachmentIdOfKey } from '../../media/naming.js';
import { WorkFiles } from '../../media/work-files.js';
import type { Progress } from '../progress.js';
import { ArchiveError, archiveEntries, linesOf } from './archive-reader.js';
import { checkArchive, hashed, type CheckedArchive } from './check-archive.js';
import {
  fileListingLine,
  filePrefix,
  partNames,
  type AttachmentLine,
  type HistoryLine,
  type Manifest,
  type PartName,
  type ScheduleLine,
  type ShareLinkLine,
} from './archive-format.js';
import { scheduleRowsOf } from '../../content/documents/schedules.js';
import { storedEntryOf } from '../../content/documents/change-recorder.js';

export interface ImportDeps {
  readonly config: Pick<AppConfig, 'pieceTypes' | 'widgetTypes' | 'limits'>;
  readonly fieldTypes: FieldTypeLookup;
  readonly storage: StorageAdapter;
  readonly files: FileStorage;
  /** Where files are written before the file store takes them. */
  readonly workDir: string;
  readonly progress: Progress;
}

/** The store already holds something: an import never mixes two stores. */
export class StoreNotEmptyError extends Error {
  override readonly name = 'StoreNotEmptyError';
}

/**
 * Imports an archive into an empty store, in three readings of it: the first checks all of it
 * and writes nothing (check-archive.ts); the second places the files, each where its record
 * will say it is (readable or not); the third writes every record in one transaction, each
 * document version laundered again as a write would have (rich text sanitized: an archive is
 * hostile input) and its filter index and search texts derived again as a reindex does. Files come first and records
 * after, as uploads do: a failure removes the files placed, the transaction leaves no record,
 * and a process killed in between leaves only files no record names, which the server's
 * attachment sweep removes.
 */
export async function importArchive(deps: ImportDeps, path: string): Promise<Manifest> {
  await refuseUnlessEmpty(deps.storage);
  const indexer = new DocumentIndexer(deps.fieldTypes);
  const restore = (type: SanitizedPieceType, doc: StoredDocument) => restoreDocument(type, doc, { registry: deps.fieldTypes, widgetTypes: deps.config.widgetTypes });
  const checked = await checkArchive({ config: deps.config, indexer, restore }, path);
  const placed: string[] = [];
  try {
    await placeFiles(deps, path, checked, placed);
    await deps.storage.transaction(async (tx) => {
      await refuseUnlessEmpty(tx);
      await writeRecords(deps, { indexer, restore }, tx, path, checked.manifest);
    });
  } catch (error) {
    for (const key of placed) await deps.files.remove(key);
    throw error;
  }
  // A store filled in one go: the planner's statistics still describe it empty.
  await deps.storage.refreshStatistics();
  return checked.manifest;
}

async function refuseUnlessEmpty(store: StorageSession): Promise<void> {
  const holds = [
    (await store.documents.versionsAfter(null, null, 1)).length > 0 && 'documents',
    (await store.logins.loginsAfter(null, 1)).length > 0 && 'users',
    (await store.attachments.attachmentsAfter(null, 1)).length > 0 && 'attachments',
  ].filter(Boolean);
  if (holds.length > 0) {
    throw new StoreNotEmptyError(`the store is not empty (it holds ${holds.join(' and ')}): import only into a new, empty store; nothing was written`);
  }
}

/** Moves every file into the file store, unreadable ones out of sight; each checked again as it is read. */
async function placeFiles(deps: ImportDeps, path: string, checked: CheckedArchive, placed: string[]): Promise<void> {
  const { manifest, unreadable } = checked;
  await mkdir(deps.workDir, { recursive: true });
  const listing = createHash('sha256');
  const stage = deps.progress.stage('files', { total: manifest.files.bytes, unit: 'bytes' });
  for await (const entry of archiveEntries(path)) {
    if (!entry.name.startsWith(filePrefix)) {
      await entry.skip();
      continue;
    }
    const key = entry.name.slice(filePrefix.length);
    const work = new WorkFiles(deps.workDir);
    try {
      const local = work.path('import');
      const hash = createHash('sha256');
      const counted = { bytes: 0 };
      await pipeline(Readable.from(hashed(entry.body, hash, counted)), createWriteStream(local));
      listing.update(fileListingLine(key, counted.bytes, hash.digest('hex')));
      placed.push(key);
      await deps.files.put(key, local);
      if (unreadable.has(attachmentIdOfKey(key)!)) await deps.files.setReadable(key, false);
      stage.add(counted.bytes);
    } finally {
      await work.cleanup();
    }
  }
  // The archive was checked whole before; this reading must have found the same files.
  if (listing.digest('hex') !== manifest.files.sha256) throw new ArchiveError('the archive changed while it was being imported');
  stage.done();
}

/** What a document version goes through before it is stored: laundered as a write would, then indexed. */
interface Deriving {
  readonly indexer: DocumentIndexer;
  readonly restore: (type: SanitizedPieceType, doc: StoredDocument) => void;
}

/**
 * Every record, read from the archive's record parts only (the files that follow are not read
 * again), each kept as it was: ids, times and digests. Nothing is added (not even a record of
 * the import in the audit trail), so the store exports the archive's bytes again.
 */
async function writeRecords(deps: ImportDeps, derive: Deriving, tx: StorageSession, path: string, manifest: Manifest): Promise<void> {
  const { indexer } = derive;
  // An archive of version 1 holds no schedules: the drafts' own show them.
  const schedulesFromDrafts = !manifest.parts.some((part) => part.name === 'schedules.jsonl');
  const held = draftsHeld(tx, [...deps.config.pieceTypes.keys()]);
  const write: Record<PartName, (record: never) => Promise<void>> = {
    'documents.jsonl': async (doc: StoredDocument) => {
      const type = deps.config.pieceTypes.get(doc.type)!;
      derive.restore(type, doc);
      const { index, properties } = indexer.index(type, doc);
      await tx.documents.insert({ ...doc, ...properties }, index);
      await tx.changes.append([storedEntryOf(doc)]);
      // The schedules a draft shows go back into the due-time index (scheduled publishing).
      if (schedulesFromDrafts) for (const { schedule, status } of scheduleRowsOf(doc)) await tx.schedules.put(schedule, status);
    },
    'users.jsonl': (login: UserLogin) => tx.logins.put(login),
    'attachments.jsonl': ({ readable, uploadedBy, ...attachment }: AttachmentLine) => tx.attachments.restore(attachment, readable, uploadedBy ?? null),
    // The trail comes back as it was, in its order.
    'audit.jsonl': (record: AuditRecord) => tx.audit.append([record]),
    'history.jsonl': async (entry: HistoryLine) => {
      await held(entry.type, `${entry.docId}:${entry.locale}:draft`);
      await tx.history.append(entry);
    },
    'share-links.jsonl': async (link: ShareLinkLine) => {
      await held(null, link.versionId);
      await tx.shareLinks.insert({ ...link, createdBy: JSON.stringify(link.createdBy) });
    },
    'schedules.jsonl': async (schedule: ScheduleLine) => {
      await held(schedule.type, schedule.versionId);
      const { by, unreviewedChange } = schedule;
      await tx.schedules.restore({ ...schedule, by: JSON.stringify(by), unreviewedChange: unreviewedChange && JSON.stringify(unreviewedChange) });
    },
  };
  let partsLeft = manifest.parts.length;
  for await (const entry of archiveEntries(path)) {
    const name = entry.name as PartName;
    const part = manifest.parts.find((listed) => listed.name === name)!;
    const stage = deps.progress.stage(name.replace('.jsonl', ''), { total: part.lines });
    let lineNumber = 0;
    for await (const line of linesOf(entry.body, deps.config.limits.archiveRecordBytes, name)) {
      lineNumber++;
      try {
        await write[name](JSON.parse(line) as never);
      } catch (error) {
        if (error instanceof MissingDocumentError) throw new ArchiveError(`line ${lineNumber} of ${name}: ${error.message}`);
        throw error;
      }
      stage.add(1);
    }
    stage.done();
    if (--partsLeft === 0) break;
  }
  // The index was derived by the plan of this configuration: no start needs to derive it again.
  for (const type of deps.config.pieceTypes.values()) await tx.indexPlans.record(type.name, indexer.planDigest(type));
}

/** A record names a draft the archive does not hold. */
class MissingDocumentError extends Error {}

/**
 * Checks that the store (the archive's documents, written first in this transaction) holds the
 * draft `versionId`, of `type` when given, else of any configured type (a lookup by id names its
 * type); remembers the last draft found, since a draft's records mostly come together.
 */
function draftsHeld(tx: StorageSession, typeNames: readonly string[]): (type: string | null, versionId: string) => Promise<void> {
  let last = { type: '', versionId: '' };
  const find = async (type: string | null, versionId: string) => {
    for (const name of type === null ? typeNames : [type]) {
      const [found] = await tx.documents.find({ type: name, ids: [versionId], limit: 1, reverseIds: false });
      if (found) return found;
    }
    return undefined;
  };
  return async (type, versionId) => {
    if (versionId === last.versionId && (type === null || type === last.type)) return;
    const draft = await find(type, versionId);
    if (!draft || draft.cmsMode !== 'draft') {
      throw new MissingDocumentError(`names the draft ${JSON.stringify(versionId)}${type === null ? '' : ` of type ${JSON.stringify(type)}`}, which the archive does not hold`);
    }
    last = { type: draft.type, versionId };
  };
}
