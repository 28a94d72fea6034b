import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Principal } from '../core/principal.js';
import type { AttachmentCrop, AttachmentRecord, StorageAdapter, StoredAttachment } from '../storage/storage-adapter.js';
import type { FileStorage } from './file-storage.js';
import type { ImageFormat, ImageProcessor } from './image-processor.js';
import { roleRank } from '../core/principal.js';
import { newId } from '../core/ids.js';
import { AppError, ForbiddenError, InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import { refusal } from '../core/refusal.js';
import { attachmentOutput, croppedAttachmentOutput, isSizedImage } from './attachment-output.js';
import { assertInside, cropCostEstimate, parseCropRequest } from './crop-request.js';
import { parseFocalPointRequest } from './focal-point-request.js';
import { sameCrop } from '../core/crop-box.js';
import { autocropFor, launderCropFields, parseAutocropRequest, type CropFields } from './autocrop.js';
import { contentTypeOf } from './content-types.js';
import { classifyExtension, type FileGroup } from './file-groups.js';
import { imageSizes } from './image-sizes.js';
import { attachmentName, attachmentTitle, fileKey, maxImageSide, splitFilename } from './naming.js';
import { digestFile, receiveFile, type ReceivedFile } from './receive-file.js';
import { contentMatches, sniffLength } from './sniff.js';
import { pdfFileProblem } from './pdf-check.js';
import { svgFileProblem } from './svg-check-thread.js';
import type { UploadBudget, UploadLease } from './upload-budget.js';
import type { BoundedPool } from '../core/bounded-pool.js';
import { WorkFiles, prepareWorkDir, totalLength } from './work-files.js';
import { AttachmentReclaimer, type SweepReport } from './attachment-reclaim.js';
import { audit, type AuditedBy, type RequestOrigin } from '../core/audit.js';

/** A stored file to serve: what caching headers need, and its bytes on demand. */
export interface ServedFile {
  readonly size: number;
  readonly modifiedAt: Date;
  readonly contentType: string;
  open(): Readable;
}

// What the service ever stores: `attachments/<id>-<name>[.<crop>][.<size>].<extension>`, one segment.
const servableKey = /^attachments\/[a-z0-9][a-z0-9.-]*\.([a-z0-9]+)$/;

/** A file as the HTTP layer hands it over: the client's name for it and its bytes, not yet read. */
export interface IncomingFile {
  readonly filename: string;
  readonly stream: Readable;
}

export interface MediaServiceDeps {
  readonly storage: StorageAdapter;
  readonly files: FileStorage;
  readonly images: ImageProcessor;
  /** Local directory for files being received or rendered; on the same file system as a local store. */
  readonly workDir: string;
  /** Largest accepted file, in bytes. */
  readonly uploadLimit: number;
  /** Per-caller upload rate and concurrency; crops are charged to it too. */
  readonly uploadBudget: UploadBudget;
  /**
   * The server-wide turns of image processing, all callers together: an upload's image work (read,
   * sized, cleaned) or a crop's takes one, and more wait in a bounded queue (past it, 503).
   */
  readonly imageTurns: BoundedPool;
  /** Most crops one attachment may have. */
  readonly cropsPerAttachment: number;
  /** Most images one autocrop request may name. */
  readonly autocropImages: number;
  /** Whether a caller may edit one of these document versions: the content layer's rule, handed in. */
  readonly mayEditVersions: VersionEditCheck;
  /** How long an attachment no document version holds is kept before it is removed with its files. */
  readonly graceMs: number;
}

/** Whether a caller may edit at least one of these document versions (by their stored `_id`). */
export type VersionEditCheck = (principal: Principal, versionIds: readonly string[]) => Promise<boolean>;

/** Who asks for an upload or a crop. */
export interface MediaCaller {
  readonly principal: Principal;
  /** The caller's stable id for its upload budget (an API key's digest or a user id); recorded as an upload's uploader. */
  readonly callerId: string | null;
}

/** An upload request: who asks, and how to read its file once it may be read. */
export interface UploadRequest extends MediaCaller {
  /** Yields the file, or null when the request holds none. */
  readonly receive: () => Promise<IncomingFile | null>;
  /** Where the request came from, for the upload's audit record. */
  readonly origin?: RequestOrigin;
}

/** A finished local file and the key it goes to in the store. */
interface Placement {
  readonly key: string;
  readonly path: string;
}

/** A file to render into the work directory (fit inside `box`, when given), then place. */
interface Rendering extends Placement {
  readonly box?: { readonly width: number; readonly height: number };
}

type Output = Record<string, unknown>;

/** Image pieces as the caller may read them, by `cmsDocId` (the content layer's lookup, handed in). */
export type ImageLookup = (cmsDocIds: readonly string[]) => Promise<readonly Output[]>;

/**
 * Uploads and crops. Every file is written under a temporary name in the work directory first;
 * only when all of an operation's files exist are they moved into the store, and only then is
 * the record written. A failure at any step removes what the operation wrote. A process that
 * dies mid-operation leaves temporary files only (removed by any start once a day old), except in the
 * moment between moving files into place and committing the record.
 */
export class MediaService {
  readonly #deps: MediaServiceDeps;
  readonly #reclaimer: AttachmentReclaimer;

  constructor(deps: MediaServiceDeps) {
    this.#deps = deps;
    this.#reclaimer = new AttachmentReclaimer({ storage: deps.storage, files: deps.files, graceMs: deps.graceMs });
  }

  /** Prepares the work directory, clearing what an interrupted process left in it. */
  async start(): Promise<void> {
    await prepareWorkDir(this.#deps.workDir);
  }

  /**
   * Stores one uploaded file and answers its attachment. `receive` is called only once the
   * caller may upload and has budget left; every byte received is charged to that budget.
   */
  async upload({ principal, callerId, receive, origin }: UploadRequest): Promise<Output> {
    assertMayUpload(principal, 'Uploading a file');
    const lease = this.#deps.uploadBudget.begin(callerId ?? 'anonymous');
    try {
      const incoming = await receive();
      if (!incoming) throw new InvalidRequestError('Send the file in the multipart form part named "file"');
      return await this.#store(incoming, lease, callerId, { principal, origin });
    } finally {
      lease.release();
    }
  }

  async #store(incoming: IncomingFile, lease: UploadLease, callerId: string | null, by: AuditedBy): Promise<Output> {
    const { base, extension: rawExtension } = splitFilename(incoming.filename);
    const { extension, group } = classifyExtension(rawExtension);
    const work = new WorkFiles(this.#deps.workDir);
    try {
      const received = await receiveFile(incoming.stream, {
        path: work.path('upload'),
        limit: this.#deps.uploadLimit,
        headLength: sniffLength,
        onChunk: lease.charge,
      });
      const record = newRecord({ base, extension, group, received });
      const placements = await this.#prepareFiles(record, received, work);
      await this.#placeThen(placements, () =>
        this.#deps.storage.transaction(async (tx) => {
          await tx.attachments.insert(record, callerId);
          const detail = { name: record.name, extension: record.extension, length: record.length };
          await audit(tx, by, { action: 'attachment.upload', ids: [record._id], detail });
        }),
      );
      return this.present({ ...record, docIds: [], archivedDocIds: [] });
    } finally {
      await work.cleanup();
    }
  }

  /** Checks the content against the extension and renders the image sizes, all in the work directory. */
  async #prepareFiles(record: AttachmentRecord, received: ReceivedFile, work: WorkFiles): Promise<Placement[]> {
    const original: Placement = { key: fileKey(record), path: received.path };
    if (received.length === 0) throw new InvalidRequestError('The file is empty');
    if (!contentMatches(record.extension, received.head, received.containsNul)) {
      throw new InvalidRequestError(`The file's content is not that of a ${record.extension} file`, { extension: record.extension });
    }
    if (record.extension === 'pdf') {
      const problem = await pdfFileProblem(received.path, received.length);
      if (problem) throw new InvalidRequestError(`The file's content is not that of a pdf file: ${problem}`, { extension: 'pdf' });
      return [original];
    }
    if (record.extension === 'svg') {
      const problem = await svgFileProblem(received.path);
      if (problem) throw new InvalidRequestError(`File was not accepted: ${problem}`);
      return [original];
    }
    if (!isSizedImage(record)) return [original];
    return this.#deps.imageTurns.run(() => this.#processImage(record, original, work));
  }

  /** Measures the received image, renders its sizes and cleans its original: one turn of image processing. */
  async #processImage(record: AttachmentRecord, original: Placement, work: WorkFiles): Promise<Placement[]> {
    const received = original.path;
    await this.#measure(record, received);
    const format = record.extension as ImageFormat;
    const sizes = sizeRenderings(record, work);
    const cleaned = work.path('cleaned');
    try {
      // The sizes come from the upload itself: re-encoding the cleaned original first would cost quality.
      await this.#deps.images.render({ source: received, format, outputs: sizes });
      if (!(await this.#deps.images.removeMetadata({ source: received, format, output: cleaned }))) return [original, ...sizes];
    } catch (error) {
      // The probe read the header only: broken image data shows when it is decoded.
      throw new AppError('invalid', 'The image could not be decoded', {}, { cause: error });
    }
    // The record describes the file that is stored and served.
    Object.assign(record, await digestFile(cleaned));
    return [{ key: original.key, path: cleaned }, ...sizes];
  }

  /** Width, height and orientation of an image whose bytes must be of its extension's format. */
  async #measure(record: AttachmentRecord, path: string): Promise<void> {
    const info = await this.#deps.images.probe(path);
    if (!info || info.format !== record.extension) {
      throw new InvalidRequestError(`The file's content is not a readable ${record.extension} image`, { extension: record.extension });
    }
    if (info.width > maxImageSide || info.height > maxImageSide) {
      throw new InvalidRequestError(`The image is ${info.width}×${info.height} pixels: at most ${maxImageSide} on a side`, { max: maxImageSide });
    }
    Object.assign(record, { width: info.width, height: info.height, landscape: info.width > info.height, portrait: info.width <= info.height });
  }

  /** Moves the files into the store, then runs `commit`; when either fails, removes what was moved. */
  async #placeThen(placements: readonly Placement[], commit: () => Promise<unknown>, keepOnFailure?: () => Promise<boolean>): Promise<void> {
    const placed: string[] = [];
    try {
      for (const { key, path } of placements) {
        await this.#deps.files.put(key, path);
        placed.push(key);
      }
      await commit();
    } catch (error) {
      if (!(await keepOnFailure?.())) await Promise.all(placed.map((key) => this.#deps.files.remove(key).catch(() => undefined)));
      throw error;
    }
  }

  /**
   * Writes a cropped version of an image and each of its sizes, then adds the crop to the
   * record (once: the same box twice is stored once). Answers true, or with `annotate: true`
   * the attachment annotated with the crop. A crop is an upload the server writes for the
   * caller: it takes one of the caller's uploads in flight and is charged to its byte budget.
   */
  async crop(caller: MediaCaller, body: unknown): Promise<true | Output> {
    assertMayUpload(caller.principal, 'Cropping an image');
    const { id, crop, annotate } = parseCropRequest(body);
    const record = await this.#find(id);
    await this.#assertMayCrop(caller, record);
    await this.#addCropFiles(record, crop, caller.callerId);
    return annotate ? this.presentCropped(await this.#find(id), crop) : true;
  }

  /**
   * Sets (or with null clears) the focal point of an image attachment: where autocrop centres its
   * crops, and where the admin centres thumbnails and new crop boxes. It changes what every document
   * showing the image shows, so it needs the same rights as a crop. Answers the attachment.
   */
  async setFocalPoint(caller: MediaCaller, body: unknown): Promise<Output> {
    assertMayUpload(caller.principal, 'Setting the focal point of an image');
    const { id, focalPoint } = parseFocalPointRequest(body);
    const record = await this.#find(id);
    await this.#assertMayCrop(caller, record);
    if (!isSizedImage(record)) throw new InvalidRequestError(`A ${record.extension} file has no focal point`, { extension: record.extension });
    await this.#deps.storage.transaction({ lockAttachments: [id] }, async (tx) => {
      const [current] = await tx.attachments.find([id]);
      if (!current) throw new NotFoundError('There is no such attachment');
      const { docIds: _docIds, archivedDocIds: _archivedDocIds, focalPoint: _previous, ...rest } = current;
      await tx.attachments.update({ ...rest, ...(focalPoint ? { focalPoint } : {}), updatedAt: new Date().toISOString() });
    });
    return this.present(await this.#find(id));
  }

  /**
   * Makes a crop of an attachment for the content layer (an image's new file keeping the crops
   * of the relationships that show it), as `crop` makes it, charged to the server's own budget.
   * False when it cannot be made (a file that is not croppable, a box outside it, no crop left,
   * files not served, a failure): the relationship then keeps no box.
   */
  async makeCrop(attachmentId: string, crop: AttachmentCrop): Promise<boolean> {
    try {
      await this.#addCropFiles(await this.#find(attachmentId), crop, recropCallerId);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Autocrop (original 12): each image of a relationship value with its crop `_fields`, laundered
   * (without an aspect ratio, only for entries that sent them), and for a widget's `aspectRatio`
   * the centred crop of that ratio, its files made as `crop`
   * makes them (charged to the caller's upload budget) so that the answer is usable at once.
   * Images the caller cannot read are dropped; files that cannot be cropped (SVG), and crops
   * already of the ratio, are left as they are. Like uploading, it needs the contributor role:
   * the box is the server's, not the caller's, so no right to edit the image's documents is asked.
   */
  async autocrop(caller: MediaCaller, body: unknown, findImages: ImageLookup): Promise<{ relationship: Output[] }> {
    assertMayUpload(caller.principal, 'Autocropping images');
    const { images, aspectRatio } = parseAutocropRequest(body, this.#deps.autocropImages);
    const wanted = [...new Set(images.map((image) => image.id.split(':')[0]!))];
    const found = wanted.length === 0 ? [] : await findImages(wanted);
    const byDocId = new Map(found.map((doc) => [doc.cmsDocId as string, doc]));
    const records = await this.#attachmentsOf(found);
    const plan = images.flatMap(({ id, fields: input }) => {
      const doc = byDocId.get(id.split(':')[0]!);
      if (!doc) return [];
      const record = records.get(((doc.attachment ?? {}) as { _id?: string })._id ?? '');
      const fields: CropFields = record ? launderCropFields(input, record) : {};
      const crop = record && aspectRatio ? autocropFor(record, fields, aspectRatio) : null;
      // Without an aspect ratio the original answers the relationship as sent: `_fields` only where they came.
      const shown = aspectRatio !== null || input !== undefined ? { _fields: fields } : {};
      return [{ doc, record, shown, crop }];
    });
    this.#assertRoomForCrops(plan.flatMap(({ record, crop }) => (record && crop ? [{ record, crop }] : [])));
    const relationship: Output[] = [];
    for (const { doc, record, shown, crop } of plan) {
      if (!record || !crop) {
        relationship.push({ ...doc, ...shown });
        continue;
      }
      await this.#addCropFiles(record, crop, caller.callerId);
      relationship.push({ ...doc, attachment: this.presentCropped(await this.#find(record._id), crop), _fields: crop, _crop: crop });
    }
    return { relationship };
  }

  /** Refuses, before any work, crops that would take an attachment past `cropsPerAttachment`. */
  #assertRoomForCrops(wanted: readonly { record: StoredAttachment; crop: AttachmentCrop }[]): void {
    const added = new Map<string, { record: StoredAttachment; crops: AttachmentCrop[] }>();
    for (const { record, crop } of wanted) {
      const entry = added.get(record._id) ?? { record, crops: [] };
      added.set(record._id, entry);
      const known = [...record.crops, ...entry.crops];
      if (known.some((existing) => sameCrop(existing, crop))) continue;
      this.#assertCropsLeft({ ...record, crops: known });
      entry.crops.push(crop);
    }
  }

  /** The stored attachments of image pieces, by `_id`, in one lookup. */
  async #attachmentsOf(docs: readonly Output[]): Promise<Map<string, StoredAttachment>> {
    const ids = docs.flatMap((doc) => {
      const id = ((doc.attachment ?? {}) as { _id?: unknown })._id;
      return typeof id === 'string' ? [id] : [];
    });
    const records = ids.length === 0 ? [] : await this.#deps.storage.attachments.find([...new Set(ids)]);
    return new Map(records.map((record) => [record._id, record]));
  }

  /**
   * A crop changes what every document showing the attachment may show: it needs the right to
   * edit one of the versions that hold it (archived ones too), or, while none holds it, to be its
   * uploader or an admin.
   */
  async #assertMayCrop({ principal, callerId }: MediaCaller, record: StoredAttachment): Promise<void> {
    // Admins may edit every document, those still to be made with an unused upload included.
    if (principal.role === 'admin') return;
    if (await this.#deps.mayEditVersions(principal, [...record.docIds, ...record.archivedDocIds])) return;
    const unused = record.docIds.length === 0 && record.archivedDocIds.length === 0;
    if (unused && callerId !== null) {
      const [uploader] = await this.#deps.storage.attachments.uploaders([record._id]);
      if (uploader?.uploadedBy === callerId) return;
    }
    throw new ForbiddenError(
      unused
        ? 'Cropping an attachment no document uses yet is for its uploader'
        : 'Cropping this attachment needs the right to edit a document that uses it',
    );
  }

  /** Writes the crop's files and records the crop, unless the attachment has it already. */
  async #addCropFiles(record: StoredAttachment, crop: AttachmentCrop, callerId: string | null): Promise<void> {
    const id = record._id;
    if (!isSizedImage(record)) throw new InvalidRequestError(`A ${record.extension} file cannot be cropped`, { extension: record.extension });
    assertInside(crop, record);
    if (record.crops.some((existing) => sameCrop(existing, crop))) return;
    this.#assertCropsLeft(record);
    const [state] = await this.#deps.storage.attachments.fileStates([id]);
    if (state && !state.readable) {
      throw new InvalidRequestError('The files of an attachment that only archived documents use are not served, nor cropped');
    }
    // Taken, and the estimate charged, before any work: a refused crop costs a lookup.
    const lease = this.#deps.uploadBudget.begin(callerId ?? 'anonymous');
    const work = new WorkFiles(this.#deps.workDir);
    try {
      const estimate = cropCostEstimate(crop, record);
      lease.take(estimate);
      const source = work.path('source');
      await pipeline(this.#deps.files.createReadStream(fileKey(record)), createWriteStream(source));
      const renderings: Rendering[] = [{ key: fileKey(record, { crop }), path: work.path('cropped') }, ...sizeRenderings(record, work, crop)];
      // The source was decoded at upload: a failure here is the server's, not the client's.
      const render = () => this.#deps.images.render({ source, format: record.extension as ImageFormat, crop, outputs: renderings });
      // The crops an image's replaced file keeps follow a committed write: they wait, never refused.
      await this.#deps.imageTurns.run(render, { refusable: callerId !== recropCallerId });
      // What the files really take, beyond the estimate; past the budget, none of them is stored.
      lease.take(Math.max(0, (await totalLength(renderings.map((rendering) => rendering.path))) - estimate));
      // A concurrent request that stored the same crop owns the same files: they stay.
      await this.#placeThen(renderings, () => this.#addCrop(id, crop), () => this.#hasCrop(id, crop));
    } finally {
      lease.release();
      await work.cleanup();
    }
  }

  /** Refuses a new crop of an attachment that has as many as it may have. */
  #assertCropsLeft(record: AttachmentRecord): void {
    const max = this.#deps.cropsPerAttachment;
    if (record.crops.length < max) return;
    throw new InvalidRequestError(`An attachment may have at most ${max} crops, and this one has them: use one of them`, {
      limit: 'cropsPerAttachment',
      max,
    });
  }

  async #addCrop(id: string, crop: AttachmentCrop): Promise<void> {
    await this.#deps.storage.transaction({ lockAttachments: [id] }, async (tx) => {
      const [current] = await tx.attachments.find([id]);
      if (!current) throw new NotFoundError();
      if (current.crops.some((existing) => sameCrop(existing, crop))) return;
      // Checked again under the lock: crops of one attachment that ran at once count each other.
      this.#assertCropsLeft(current);
      const { docIds: _docIds, archivedDocIds: _archivedDocIds, ...record } = current;
      await tx.attachments.update({ ...record, crops: [...record.crops, crop], updatedAt: new Date().toISOString() });
    });
  }

  async #hasCrop(id: string, crop: AttachmentCrop): Promise<boolean> {
    const [record] = await this.#deps.storage.attachments.find([id]);
    return record?.crops.some((existing) => sameCrop(existing, crop)) ?? false;
  }

  async #find(id: string): Promise<StoredAttachment> {
    const [record] = await this.#deps.storage.attachments.find([id]);
    if (!record) throw new NotFoundError('There is no such attachment');
    return record;
  }

  /**
   * Makes the files of these attachments readable or not as their records say, after the write
   * that decided it committed. Never fails that write: a file left behind is moved by the next sweep.
   */
  async settle(ids: readonly string[]): Promise<void> {
    await this.#reclaimer.settle(ids).catch(() => undefined);
  }

  /** One pass of reclaiming: files made to match their records, unused attachments and orphan files removed. */
  async sweep(now?: number): Promise<SweepReport> {
    return this.#reclaimer.sweep(now);
  }

  /** A stored attachment file by its key (the path under `/uploads/`), or null; nothing else is served. */
  async file(key: string): Promise<ServedFile | null> {
    const match = servableKey.exec(key);
    if (!match) return null;
    const info = await this.#deps.files.stat(key);
    if (!info) return null;
    return { ...info, contentType: contentTypeOf(match[1]!), open: () => this.#deps.files.createReadStream(key) };
  }

  /** The response form of an attachment (URLs computed now); with `crop`, the URLs of that crop. */
  present(attachment: StoredAttachment, crop?: AttachmentCrop | null): Output {
    return attachmentOutput(this.#deps.files, attachment, crop);
  }

  /** The response form of an attachment shown through a crop: `_crop`, and the uncropped sizes under `_urls.uncropped`. */
  presentCropped(attachment: StoredAttachment, crop: AttachmentCrop): Output {
    return croppedAttachmentOutput(this.#deps.files, attachment, crop);
  }
}

/** Whom the budget charges for the crops an image's replaced file keeps. */
const recropCallerId = 'system:recrop';

/** Uploading and cropping need the contributor role, as in the original. */
function assertMayUpload(principal: Principal, action: string): void {
  if (roleRank(principal.role) < roleRank('contributor')) {
    throw refusal(principal, 'contributor', action);
  }
}

/** One rendering per image size, of the whole image or of a crop. */
function sizeRenderings(record: AttachmentRecord, work: WorkFiles, crop?: AttachmentCrop): Rendering[] {
  return imageSizes.map((size) => ({
    key: fileKey(record, { crop, size: size.name }),
    path: work.path(size.name),
    box: { width: size.width, height: size.height },
  }));
}

function newRecord(args: { base: string; extension: string; group: FileGroup; received: ReceivedFile }): AttachmentRecord {
  const now = new Date().toISOString();
  return {
    _id: newId(),
    group: args.group.name,
    createdAt: now,
    name: attachmentName(args.base),
    title: attachmentTitle(args.base),
    extension: args.extension,
    type: 'attachment',
    length: args.received.length,
    md5: args.received.md5,
    crops: [],
    updatedAt: now,
  };
}
