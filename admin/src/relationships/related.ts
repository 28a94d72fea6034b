import type { Attachment, FieldSchema, PieceDocument } from '../api/types';
import { sizeUrl } from '../media/media-api';

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

/** Media types: their search also offers the media picker, and their rows a thumbnail. */
export const mediaKinds: Readonly<Record<string, 'image' | 'file'>> = { '@cms/image': 'image', '@cms/file': 'file' };

interface WithAttachment {
  attachment?: Attachment | null;
}

export function thumbnailOf(doc: RelatedDocument | PieceDocument): string | undefined {
  const attachment = (doc as WithAttachment).attachment;
  return attachment ? sizeUrl(attachment, 'one-sixth') : undefined;
}

/** A picked document as the relationship holds it, with its own fields' defaults. */
export function toRelated(doc: PieceDocument, fields: readonly FieldSchema[]): RelatedDocument {
  const own = Object.fromEntries(fields.filter((field) => field.def !== undefined).map((field) => [field.name, structuredClone(field.def)]));
  return { ...doc, _fields: own };
}
