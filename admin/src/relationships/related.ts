import type { Attachment, FieldSchema, PieceDocument } from '../api/types';
import { focalObjectPosition, sizeUrl } from '../media/media-api';

/** A related document as the server expands it on read; on write it reads only `_id` and `_fields`. */
export interface RelatedDocument {
  _id: string;
  cmsDocId?: string;
  title?: string;
  _fields?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The id the server files the relationship's own fields and their errors under. */
export function relatedKey(doc: RelatedDocument): string {
  return doc.cmsDocId ?? doc._id.split(':')[0]!;
}

/**
 * The ids a relationship holds as the server answers them (`authorIds` for `_author`): present
 * even when the caller's role may not read the related type, whose `_author` then comes back empty.
 */
export function heldIds(holder: Readonly<Record<string, unknown>>, fieldName: string): string[] {
  const ids = holder[`${fieldName.replace(/^_/, '')}Ids`];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** Media types: their search also offers the media picker, and their rows a thumbnail. */
export const mediaKinds: Readonly<Record<string, 'image' | 'file'>> = { '@cms/image': 'image', '@cms/file': 'file' };

interface WithAttachment {
  attachment?: Attachment | null;
}

export function thumbnailOf(doc: RelatedDocument | PieceDocument): string | undefined {
  const attachment = (doc as WithAttachment).attachment;
  return attachment ? sizeUrl(attachment, 'one-sixth') : undefined;
}

/** Where a square thumbnail (`object-fit: cover`) keeps the image's focal point. */
export function thumbnailPosition(doc: RelatedDocument | PieceDocument): string | undefined {
  return focalObjectPosition((doc as WithAttachment).attachment);
}

/** A picked document as the relationship holds it, with its own fields' defaults. */
export function toRelated(doc: PieceDocument, fields: readonly FieldSchema[]): RelatedDocument {
  const own = Object.fromEntries(fields.filter((field) => field.def !== undefined).map((field) => [field.name, structuredClone(field.def)]));
  return { ...doc, _fields: own };
}
