import type { AttachmentCrop } from '../storage/storage-adapter.js';
import { sortify } from '../core/text.js';

// Long enough to keep a name recognisable, short enough for any file system once id and size are added.
const maxNameLength = 64;
const maxTitleLength = 200;
/** The widest or tallest image an attachment records (`cms import` checks the same bound). */
export const maxImageSide = 1_000_000;
const fallbackName = 'file';

/**
 * Splits a client's file name into base name and extension. Only the last path segment counts
 * (either slash), control characters (NUL included) are dropped, and a leading dot starts no
 * extension. The result is never used as a path: see `attachmentName`.
 */
export function splitFilename(raw: string): { base: string; extension: string } {
  const cleaned = raw.replace(/[\u0000-\u001f\u007f]/g, '');
  const last = cleaned.split(/[/\\]/).pop() ?? '';
  const dot = last.lastIndexOf('.');
  if (dot <= 0) return { base: last, extension: '' };
  return { base: last.slice(0, dot), extension: last.slice(dot + 1) };
}

/** The stored `name`: a lowercase ASCII slug of the base name, bounded, never empty. */
export function attachmentName(base: string): string {
  const ascii = base.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  const bounded = slug.slice(0, maxNameLength).replace(/-+$/, '');
  return bounded || fallbackName;
}

/** The stored `title`: the sortified base name (any script), bounded. */
export function attachmentTitle(base: string): string {
  return sortify(base).slice(0, maxTitleLength).trim() || fallbackName;
}

/** What a file name is built from: the record's own, already laundered, values. */
export interface NamedAttachment {
  readonly _id: string;
  readonly name: string;
  readonly extension: string;
}

/**
 * The storage key of one file of an attachment:
 * `attachments/<_id>-<name>[.<top>.<left>.<width>.<height>][.<size>].<extension>`.
 */
export function fileKey(attachment: NamedAttachment, variant: { crop?: AttachmentCrop | null; size?: string } = {}): string {
  const { crop, size } = variant;
  const cropPart = crop ? `.${crop.top}.${crop.left}.${crop.width}.${crop.height}` : '';
  const sizePart = size ? `.${size}` : '';
  return `attachments/${attachment._id}-${attachment.name}${cropPart}${sizePart}.${attachment.extension}`;
}

/** The id of the attachment a storage key belongs to, or null for a key no attachment file has. */
export function attachmentIdOfKey(key: string): string | null {
  return /^attachments\/([a-z0-9]+)-/.exec(key)?.[1] ?? null;
}
