import type { AppConfig } from '../app-config.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { AttachmentRecord, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { TransactionRunner } from './transaction-runner.js';
import type { VersionWriter } from './version-writer.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { centredCrop, cropOf, fitsInside, sameCrop, type CropBox } from '../../core/crop-box.js';
import { holdsCropFields } from '../fields/image-crop-fields.js';
import { relatedFields, relatedIds } from '../fields/relationship.js';
import { isPlainObject } from '../fields/nested.js';
import { walkFieldDefinitions, walkFields } from '../fields/walk-fields.js';
import { imageTypeName } from '../types/builtin-types.js';
import { reverseIdsOf } from './reverse-bookkeeping.js';
import { moveUpdatedAt } from './new-version.js';

/**
 * Replacing an image's file keeps the crops of the relationships that show it (the original's
 * `autoCropRelations` / `updateImageCropRelationships`): for every version of every document in
 * the image's `relatedReverseIds`, each relationship to the image whose crop fields hold a box or
 * a focal point gets, for the new file, the same box when it still fits inside it, else the
 * centred box of the old box's ratio (the original's `calculateAutocrop`), and its focal point
 * reset (`x`, `y` null), as the original resets it.
 *
 * Files and rows agree: the crop files are made first (idempotent, named by the box), then one
 * transaction stores the new fields, keeping a box only when the new file's record lists it
 * among its crops. That transaction runs right after the image's own, not inside it: the new
 * file is known only once the image's write converted its body, inside its transaction, and
 * making a crop renders several files (seconds of sharp work) and records the crop on the
 * attachment in a transaction of its own, which cannot run while the image's transaction holds
 * the store. Should the process stop between the two, the relationships keep their old box,
 * which the new file does not list: it is shown uncropped (`throughCropFields`), never as a
 * URL of a file that was never made.
 *
 * A related document's content changes: its versions get a new `updatedAt` (and
 * `cacheInvalidatedAt`), so that an editor's `If-Match` taken before names no current version
 * and cannot write the old crop back over the new one (412). `updatedBy` stays: they were not edited.
 */

/** An image whose version changed file: what carrying the crops over needs. */
export interface ImageReplacement {
  readonly imageDocId: string;
  readonly attachmentId: string;
  /** The image's locale: relating versions of other locales show that locale's version of the image. */
  readonly locale: string | null;
  /** The documents relating to the image, by `cmsDocId` (all its versions' `relatedReverseIds`). */
  readonly relatingIds: readonly string[];
}

/** Makes the files of a crop of an attachment and records the crop (the media module); false when it cannot. */
export interface AttachmentCropMaker {
  makeCrop(attachmentId: string, crop: CropBox): Promise<boolean>;
}

/** One relationship's crop fields for the image, in a stored version (mutated in place when changed). */
interface CropSlot {
  readonly fields: Record<string, unknown>;
}

export interface ImageRecropDeps {
  readonly config: AppConfig;
  readonly registry: FieldTypeLookup;
  /** Reads outside a transaction (the store adapter). */
  readonly storage: StorageSession;
  readonly transactions: TransactionRunner;
  readonly versions: VersionWriter;
  readonly crops: AttachmentCropMaker;
  /** Told when carrying the crops over fails; none: the error reaches the image's writer. */
  readonly onFailure?: FollowUpFailure;
}

/** Told of a failure of work that follows a committed write, and of what it was. */
export type FollowUpFailure = (error: unknown, what: string) => void;

export class ImageRecrop {
  readonly #deps: ImageRecropDeps;
  /** The piece types with a relationship to images that holds crop fields, at any depth (built once). */
  #cropping: SanitizedPieceType[] | undefined;

  constructor(deps: ImageRecropDeps) {
    this.#deps = deps;
  }

  /** The attachment `_id` an image version holds (null: none, or not an image). */
  attachmentOf(type: SanitizedPieceType, doc: Readonly<Record<string, unknown>>): string | null {
    if (type.name !== imageTypeName) return null;
    const attachment = doc.attachment;
    return isPlainObject(attachment) && typeof attachment._id === 'string' ? attachment._id : null;
  }

  /**
   * In the image's write, once its versions are saved: the replacement to carry out after it
   * commits, or null when the file stayed. Refuses (400, nothing stored) a replacement that
   * would re-crop more documents than `limits.imageRecropDocuments`.
   */
  replacement(type: SanitizedPieceType, before: string | null, versions: readonly StoredDocument[]): ImageReplacement | null {
    const version = versions[0];
    const attachmentId = version ? this.attachmentOf(type, version) : null;
    if (!version || attachmentId === null || attachmentId === before) return null;
    const relatingIds = [...new Set(versions.flatMap((doc) => reverseIdsOf(doc)))].filter((id) => id !== version.cmsDocId);
    const max = this.#deps.config.limits.imageRecropDocuments;
    if (relatingIds.length > max) {
      throw new InvalidRequestError(
        `This image is used by ${relatingIds.length} documents, and replacing its file re-crops at most ${max}: raise limits.imageRecropDocuments`,
        { limit: 'imageRecropDocuments', max },
      );
    }
    const locale = typeof version.cmsLocale === 'string' ? version.cmsLocale.split(':')[0]! : null;
    return relatingIds.length === 0 ? null : { imageDocId: version.cmsDocId, attachmentId, locale, relatingIds };
  }

  /**
   * After the image's write committed: the crop files first, then one transaction for the fields.
   * A failure does not undo the image's write, which is stored: the relationships keep their old
   * box and show the image uncropped, and whoever watches the server is told.
   */
  async carryOut(replacement: ImageReplacement): Promise<void> {
    const { onFailure } = this.#deps;
    if (!onFailure) return this.#carryOut(replacement);
    await this.#carryOut(replacement).catch((error: unknown) =>
      onFailure(error, `re-cropping the relationships of image ${replacement.imageDocId} to its new file failed; they show it uncropped`),
    );
  }

  async #carryOut(replacement: ImageReplacement): Promise<void> {
    const types = this.#croppingTypes();
    if (types.length === 0) return;
    const [record] = await this.#deps.storage.attachments.find([replacement.attachmentId]);
    if (!record) return;
    const boxes: CropBox[] = [];
    for (const { slot } of await this.#slotsOf(this.#deps.storage, types, replacement)) {
      const box = newBox(slot.fields, record);
      if (box && !boxes.some((known) => sameCrop(known, box))) boxes.push(box);
    }
    for (const box of boxes) await this.#deps.crops.makeCrop(record._id, box);
    await this.#deps.transactions.run({ lock: [replacement.imageDocId, ...replacement.relatingIds] }, (tx) => this.#store(tx, types, replacement));
  }

  async #store(tx: StorageSession, types: readonly SanitizedPieceType[], replacement: ImageReplacement): Promise<void> {
    const [record] = await tx.attachments.find([replacement.attachmentId]);
    if (!record || !(await this.#stillHolds(tx, replacement))) return;
    const now = new Date().toISOString();
    const changed = new Set<StoredDocument>();
    for (const { doc, slot } of await this.#slotsOf(tx, types, replacement)) {
      if (!needsUpdate(slot.fields, record)) continue;
      const box = newBox(slot.fields, record);
      // Only a box the new file has the files of: one the crop maker could not make is dropped.
      const made = box !== null && record.crops.some((crop) => sameCrop(crop, box));
      Object.assign(slot.fields, made ? box : { top: null, left: null, width: null, height: null }, { x: null, y: null });
      changed.add(doc);
    }
    for (const doc of changed) {
      moveUpdatedAt(doc, now);
      await this.#deps.versions.update(tx, doc);
    }
  }

  /**
   * Whether the image still holds the new file: a replacement that came after this one (and
   * waited for it, holding the same document) brings the crops to its own file instead.
   */
  async #stillHolds(tx: StorageSession, replacement: ImageReplacement): Promise<boolean> {
    const type = this.#deps.config.pieceTypes.get(imageTypeName)!;
    const versions = await tx.documents.find({ type: imageTypeName, docIds: [replacement.imageDocId] });
    return versions.some((doc) => inLocale(doc, replacement.locale) && this.attachmentOf(type, doc) === replacement.attachmentId);
  }

  /** Every relationship to the image with a box or a focal point, in every version of the relating documents. */
  async #slotsOf(
    session: StorageSession,
    types: readonly SanitizedPieceType[],
    replacement: ImageReplacement,
  ): Promise<{ doc: StoredDocument; slot: CropSlot }[]> {
    const found: { doc: StoredDocument; slot: CropSlot }[] = [];
    const deps = { registry: this.#deps.registry, widgetTypes: this.#deps.config.widgetTypes };
    for (const type of types) {
      for (const doc of await session.documents.find({ type: type.name, docIds: replacement.relatingIds })) {
        if (!inLocale(doc, replacement.locale)) continue;
        walkFields({ fields: type.fields, values: doc }, deps, (field, container) => {
          if (!holdsCropFields(field) || !relatedIds(container, field).includes(replacement.imageDocId)) return;
          const fields = relatedFields(container, field)[replacement.imageDocId];
          if (isPlainObject(fields) && (cropOf(fields) !== null || hasFocalCoordinate(fields))) {
            found.push({ doc, slot: { fields } });
          }
        });
      }
    }
    return found;
  }

  #croppingTypes(): SanitizedPieceType[] {
    this.#cropping ??= [...this.#deps.config.pieceTypes.values()].filter((type) => {
      let holds = false;
      walkFieldDefinitions([type.fields], this.#deps.config.widgetTypes, (field) => {
        if (holdsCropFields(field)) holds = true;
      });
      return holds;
    });
    return this.#cropping;
  }
}

/** The box for the new file: the old one when it still fits, else the centred one of its ratio; null: none. */
function newBox(fields: Readonly<Record<string, unknown>>, record: Pick<AttachmentRecord, 'width' | 'height'>): CropBox | null {
  const box = cropOf(fields);
  const { width, height } = record;
  if (!box || box.width < 1 || box.height < 1 || !width || !height) return null;
  return fitsInside(box, { width, height }) ? box : centredCrop({ width, height }, [box.width, box.height]);
}

/** Crop fields not yet brought to the new file: a focal point, or a box the file does not list among its crops. */
function needsUpdate(fields: Readonly<Record<string, unknown>>, record: Pick<AttachmentRecord, 'crops'>): boolean {
  const box = cropOf(fields);
  return hasFocalCoordinate(fields) || (box !== null && !record.crops.some((crop) => sameCrop(crop, box)));
}

/** A version of the image's locale (any mode, the `previous` copy too, as the original), or of a type that is not localized. */
function inLocale(doc: StoredDocument, locale: string | null): boolean {
  return typeof doc.cmsLocale !== 'string' || locale === null || doc.cmsLocale.split(':')[0] === locale;
}

function hasFocalCoordinate(fields: Readonly<Record<string, unknown>>): boolean {
  return typeof fields.x === 'number' || typeof fields.y === 'number';
}
