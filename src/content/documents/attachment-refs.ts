import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { WidgetTypes } from '../fields/field-type.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { AttachmentCrop, AttachmentRecord, AttachmentStore, StoredAttachment } from '../../storage/storage-adapter.js';
import { attachmentField } from '../fields/attachment.js';
import { isPlainObject } from '../fields/nested.js';
import { schemasHold, walkFields } from '../fields/walk-fields.js';
import { isValidId } from '../../core/text.js';
import { cropOf, focalPointOf, sameCrop } from '../../core/crop-box.js';

/** Gives an attachment its response form (URLs); the media module provides it. */
export interface AttachmentPresenter {
  present(attachment: StoredAttachment, crop: AttachmentCrop | null): Record<string, unknown>;
  /** As shown through a crop: `_crop`, the cropped files' `_urls`, and the uncropped ones under `_urls.uncropped`. */
  presentCropped(attachment: StoredAttachment, crop: AttachmentCrop): Record<string, unknown>;
}

/**
 * Makes the files of attachments readable or not, as their records say since a write that
 * committed (the media module). Never fails the write: files left behind are made to match by
 * the media module's sweep.
 */
export interface AttachmentFileKeeper {
  settle(ids: readonly string[]): Promise<void>;
}

/** Where one attachment value sits: `container[key]`. */
interface Slot {
  readonly container: Record<string, unknown>;
  readonly key: string;
  readonly value: Record<string, unknown> & { _id: string };
}

/** The stored record of an attachment without its usage, as attachment fields keep it. */
export function recordOf(attachment: StoredAttachment): AttachmentRecord {
  const { docIds: _docIds, archivedDocIds: _archivedDocIds, ...record } = attachment;
  return record;
}

/**
 * Finds the attachment values of a document by walking its type's schema, into arrays, objects
 * and area widgets: to record which attachments a version holds, and to present them.
 */
export class AttachmentRefs {
  readonly #deps: { readonly registry: FieldTypeLookup; readonly widgetTypes: WidgetTypes };
  /** Per type: whether its schema has an attachment field at any depth (else no walk is needed). */
  readonly #holdsAttachments = new WeakMap<SanitizedPieceType, boolean>();

  constructor(deps: { registry: FieldTypeLookup; widgetTypes: WidgetTypes }) {
    this.#deps = deps;
  }

  slots(type: SanitizedPieceType, doc: Record<string, unknown>): Slot[] {
    if (!this.#holds(type)) return [];
    const slots: Slot[] = [];
    walkFields({ fields: type.fields, values: doc }, this.#deps, (field, container) => {
      const value = container[field.name];
      if (field.type === attachmentField.name && isPlainObject(value) && isValidId(value._id)) {
        slots.push({ container, key: field.name, value: value as Slot['value'] });
      }
    });
    return slots;
  }

  #holds(type: SanitizedPieceType): boolean {
    let holds = this.#holdsAttachments.get(type);
    if (holds === undefined) {
      holds = schemasHold([type.fields], this.#deps.widgetTypes, attachmentField.name);
      this.#holdsAttachments.set(type, holds);
    }
    return holds;
  }

  /** Every attachment id the document holds, once each. */
  ids(type: SanitizedPieceType, doc: Record<string, unknown>): string[] {
    return [...new Set(this.slots(type, doc).map((slot) => slot.value._id))];
  }
}

/**
 * Replaces each attachment value of documents being presented with the current record in its
 * response form (fresh URLs, current `docIds`), keeping the document's own `crop`: one store
 * query for a whole page. `docIds`/`archivedDocIds` name draft and archived versions, so only
 * callers with API access to the type (`usage`) see them.
 */
export class AttachmentAnnotator {
  readonly #refs: AttachmentRefs;
  readonly #store: Pick<AttachmentStore, 'find'>;
  readonly #presenter: AttachmentPresenter;

  constructor(deps: { refs: AttachmentRefs; store: Pick<AttachmentStore, 'find'>; presenter: AttachmentPresenter }) {
    this.#refs = deps.refs;
    this.#store = deps.store;
    this.#presenter = deps.presenter;
  }

  /** True when any attachment is shown: the answer then depends on the attachments. */
  async annotate(outputs: readonly Record<string, unknown>[], type: SanitizedPieceType, options: { usage: boolean }): Promise<boolean> {
    const slots = outputs.flatMap((output) => this.#refs.slots(type, output));
    if (slots.length === 0) return false;
    const found = await this.#store.find([...new Set(slots.map((slot) => slot.value._id))]);
    const byId = new Map(found.map((attachment) => [attachment._id, attachment]));
    for (const { container, key, value } of slots) {
      const { crop, ...copy } = value;
      // A record that is gone (never expected) is shown from the document's own copy.
      const current = byId.get(value._id) ?? ({ ...copy, docIds: [], archivedDocIds: [] } as unknown as StoredAttachment);
      const presented = this.#presenter.present(current, (crop as AttachmentCrop | null | undefined) ?? null);
      if (!options.usage) {
        delete presented.docIds;
        delete presented.archivedDocIds;
      }
      container[key] = presented;
    }
    return true;
  }

  /**
   * A related image's attachment (as `annotate` presented it) shown through the crop fields of
   * the relationship that reaches it: the crop's files when the box is one of the crops made for
   * this file (else none: no URL names a file never made), and `_focalPoint` when one is set:
   * the relationship's own (`x`, `y`), else the attachment's.
   */
  throughCropFields(attachment: Record<string, unknown>, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const box = cropOf(fields);
    const crops = Array.isArray(attachment.crops) ? (attachment.crops as AttachmentCrop[]) : [];
    const made = box !== null && crops.some((crop) => sameCrop(crop, box));
    const shown = made ? this.#presenter.presentCropped(attachment as unknown as StoredAttachment, box) : attachment;
    const focalPoint = focalPointOf(fields) ?? (attachment.focalPoint as { x: number; y: number } | undefined);
    return focalPoint ? { ...shown, _focalPoint: focalPoint } : shown;
  }
}
