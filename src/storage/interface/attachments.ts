/** A crop box of an image, in pixels of the image as displayed (EXIF orientation applied). */
export interface AttachmentCrop {
  readonly top: number;
  readonly left: number;
  readonly width: number;
  readonly height: number;
}

/** An uploaded file's record, as the media module writes it. */
export interface AttachmentRecord {
  _id: string;
  type: 'attachment';
  group: string;
  extension: string;
  /** Slug of the uploaded file's base name; part of every file name of the attachment. */
  name: string;
  title: string;
  length: number;
  md5: string;
  /** Images with pixels (not SVG): size as displayed, EXIF orientation applied. */
  width?: number;
  height?: number;
  landscape?: boolean;
  portrait?: boolean;
  crops: AttachmentCrop[];
  /** Where the image's subject is, in whole percent of its width and height (0..100); absent: none set. */
  focalPoint?: { x: number; y: number };
  createdAt: string;
  updatedAt: string;
}

/** A record with the document versions that hold it, live and archived, each list sorted. */
export interface StoredAttachment extends AttachmentRecord {
  docIds: string[];
  archivedDocIds: string[];
}

export interface AttachmentStore {
  /** The attachments with these ids that exist, in no particular order. */
  find(ids: readonly string[]): Promise<StoredAttachment[]>;
  /**
   * Records a new upload and who uploaded it (`uploadedBy`, a caller id; null or absent: unknown), kept
   * apart from the record. Throws ConflictError (data.constraint `id`) when the `_id` is taken.
   */
  insert(record: AttachmentRecord, uploadedBy?: string | null): Promise<void>;
  /** Who uploaded these attachments, for those that exist and whose uploader is known. */
  uploaders(ids: readonly string[]): Promise<AttachmentUploader[]>;
  /** Up to `limit` attachments whose `_id` sorts after `afterId` (all: null), with their usage, in bytewise `_id` order. */
  attachmentsAfter(afterId: string | null, limit: number): Promise<StoredAttachment[]>;
  /**
   * Stores an attachment as an export holds it: the record, the versions that hold it (`docIds`,
   * `archivedDocIds`) and whether its files are to be readable, which they are taken to be
   * already (an import places them first). Unused, it is unused from now on (`findUnused`).
   * Throws ConflictError (data.constraint `id`) when the `_id` is taken. `uploadedBy` as for `insert`.
   */
  restore(attachment: StoredAttachment, readable: boolean, uploadedBy?: string | null): Promise<void>;
  /** Replaces the record with the same `_id` (its usage stays); false when there is none. */
  update(record: AttachmentRecord): Promise<boolean>;
  /**
   * Records that the document version `docVersionId` now holds exactly these attachments,
   * archived or not, replacing what it held before; an empty list forgets the version.
   * Ids without a record are ignored. An attachment that no version holds any more is unused
   * from now on (`findUnused`). Answers the ids of the attachments whose usage changed: held
   * or let go by the version, or held now archived where it was not (or the reverse).
   */
  setUsage(docVersionId: string, attachmentIds: readonly string[], archived: boolean): Promise<string[]>;
  /**
   * Records whether the files of these attachments are to be readable; answers the ids whose
   * value changed. The files themselves are made to match after the transaction commits.
   */
  setReadable(ids: readonly string[], readable: boolean): Promise<string[]>;
  /** Where the files of these attachments stand, for those that exist. */
  fileStates(ids: readonly string[]): Promise<AttachmentFileState[]>;
  /** Up to `limit` attachments whose files were not yet made to match their `readable`. */
  unsettledFiles(limit: number): Promise<AttachmentFileState[]>;
  /** Records that the files of `id` were made readable (or unreadable). */
  markFiles(id: string, readable: boolean): Promise<void>;
  /** Up to `limit` attachments that no document version has held since before `before` (ms since the epoch). */
  findUnused(before: number, limit: number): Promise<StoredAttachment[]>;
  /** Removes the record of `id` when still no version holds it and none has since before `before`; true when removed. */
  removeUnused(id: string, before: number): Promise<boolean>;
  /**
   * `find`, holding the records `ids` until the transaction ends as `transaction({ lockAttachments })`
   * does (outside a transaction: `find`). For a write that learns which attachments it takes up
   * only once under way (a document write, from the fields it stores): the sweep removes an unused
   * attachment under the same hold, so one found here stays until the write commits.
   */
  findHeld(ids: readonly string[]): Promise<StoredAttachment[]>;
}

/** Who uploaded an attachment: the caller id its upload was charged to (`user:<id>`, `key:<digest>`). */
export interface AttachmentUploader {
  readonly id: string;
  readonly uploadedBy: string;
}

/**
 * Whether an attachment's files are to be readable (decided by the content layer when a write
 * changes the attachment's usage; true for new uploads), and whether they were last made so.
 */
export interface AttachmentFileState {
  readonly id: string;
  readonly readable: boolean;
  readonly filesReadable: boolean;
}
