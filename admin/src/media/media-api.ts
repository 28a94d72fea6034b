import { currentLanguage } from '../i18n';
import { request, uploadFile } from '../api/client';
import { insertPiece, listPieces } from '../api/pieces';
import type { Attachment, Crop, FocalPoint, PieceDocument } from '../api/types';

/**
 * The media library over the public interface: images are `@cms/image` pieces, files `@cms/file`
 * pieces, each holding one uploaded attachment. Both types autopublish, so one write is enough.
 */
export type MediaKind = 'image' | 'file';

export const mediaTypes: Readonly<Record<MediaKind, string>> = { image: '@cms/image', file: '@cms/file' };

/** The tags of each kind (`@cms/image-tag`, `@cms/file-tag`), held by the pieces' `_tags` relationship. */
export const tagTypes: Readonly<Record<MediaKind, string>> = { image: '@cms/image-tag', file: '@cms/file-tag' };

export interface MediaTag {
  readonly _id: string;
  readonly cmsDocId: string;
  readonly title: string;
}

/** Whole pixels of the upright image, as `POST /@cms/attachment/crop` takes them. */
export type { Crop, FocalPoint };

/** An attachment as a document holds it: the stored record plus the crop chosen for this use (`crop`). */
export type HeldAttachment = Attachment;

export interface MediaPiece extends PieceDocument {
  attachment: HeldAttachment;
  _tags?: MediaTag[];
  alt?: string;
  credit?: string;
  creditUrl?: string;
  description?: string;
}

/** The server's `images` group (README "Media"); `.jpeg` is stored as `jpg`. */
export const imageExtensions: readonly string[] = ['gif', 'jpg', 'jpeg', 'png', 'svg', 'webp'];

/** The server's file groups (README "Media"), for what an attachment field's file input accepts. */
export const groupExtensions: Readonly<Record<string, readonly string[]>> = {
  images: imageExtensions,
  office: ['txt', 'rtf', 'pdf', 'xls', 'ppt', 'doc', 'pptx', 'sldx', 'ppsx', 'potx', 'xlsx', 'xltx', 'csv', 'docx', 'dotx'],
};

/** The extensions a field accepts: its `extensions`, else those of its `fileGroups`, else every group's. */
export function acceptedExtensions(field: { fileGroups?: readonly string[]; extensions?: readonly string[] }): string[] {
  if (field.extensions?.length) return field.extensions.map((extension) => extension.toLowerCase());
  const groups = field.fileGroups?.length ? field.fileGroups : Object.keys(groupExtensions);
  return groups.flatMap((group) => groupExtensions[group] ?? []);
}

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

export function isImageFile(file: File): boolean {
  return imageExtensions.includes(extensionOf(file.name));
}

export const perPage = 24;

/** One page of the library; with `tags` (their `cmsDocId`s), only pieces holding any of them (`_tags[]`). */
export function listMedia(kind: MediaKind, locale: string, options: { page: number; search: string; tags?: readonly string[] }, signal?: AbortSignal) {
  const tags = options.tags?.length ? { _tags: [...options.tags] } : {};
  return listPieces(mediaTypes[kind], { locale }, { page: options.page, perPage, search: options.search.trim() || undefined, ...tags }, signal) as Promise<{
    pages: number;
    currentPage: number;
    nextCursor: string | null;
    results: MediaPiece[];
  }>;
}

/** Most tags the library offers at once: a library's tags are a short vocabulary, not a list to page through. */
export const tagsShown = 100;

/** The tags of a kind, by title. */
export async function listTags(kind: MediaKind, locale: string): Promise<MediaTag[]> {
  const answer = await listPieces(tagTypes[kind], { locale }, { perPage: tagsShown, sort: { title: 1 } });
  return answer.results as unknown as MediaTag[];
}

/** A new tag, made while tagging (tags autopublish, as the media they tag). */
export async function createTag(kind: MediaKind, locale: string, title: string): Promise<MediaTag> {
  return (await insertPiece(tagTypes[kind], { locale }, { title })) as unknown as MediaTag;
}

/** A piece's title from its file name: "harbour-at-dawn.jpg" becomes "harbour at dawn". */
export function titleFromFileName(fileName: string): string {
  const base = fileName.replace(/\.[^.]*$/, '').replace(/[-_]+/g, ' ').trim();
  return base || fileName;
}

/**
 * Uploads one file (with progress) and makes it a library piece: an `@cms/image` when the server
 * put it in the images group, else an `@cms/file`; `kind: 'file'` keeps everything a file.
 */
export async function uploadToLibrary(file: File, options: { locale: string; kind?: MediaKind; onProgress?: (fraction: number) => void }): Promise<MediaPiece> {
  const attachment = await uploadFile<Attachment>(file, options.onProgress);
  const kind: MediaKind = options.kind ?? (attachment.group === 'images' ? 'image' : 'file');
  return (await insertPiece(mediaTypes[kind], { locale: options.locale }, {
    title: titleFromFileName(file.name),
    attachment: { _id: attachment._id },
  })) as MediaPiece;
}

export function cropImage(attachmentId: string, crop: Crop): Promise<boolean> {
  return request<boolean>('/@cms/attachment/crop', { method: 'POST', body: { _id: attachmentId, crop } });
}

/** Sets (null: clears) where the image's subject is; answers the attachment as stored. */
export function setFocalPoint(attachmentId: string, focalPoint: FocalPoint | null): Promise<Attachment> {
  return request<Attachment>('/@cms/attachment/focal-point', { method: 'POST', body: { _id: attachmentId, focalPoint } });
}

/**
 * The CSS `object-position` that keeps an image's focal point in view where CSS crops it
 * (`object-fit: cover`): the point a relationship gives (`_focalPoint`), else the attachment's.
 * Undefined without one, or for a cropped file (the point is of the whole image): centred.
 */
export function focalObjectPosition(attachment: Attachment | null | undefined): string | undefined {
  const point = attachment && !attachment._crop && !attachment.crop ? (attachment._focalPoint ?? attachment.focalPoint) : undefined;
  return point ? `${point.x}% ${point.y}%` : undefined;
}

function cropSegment(crop: Crop): string {
  return `.${crop.top}.${crop.left}.${crop.width}.${crop.height}`;
}

/**
 * A file URL of an attachment for a size and crop. The server names files
 * `<_id>-<name>[.<top>.<left>.<width>.<height>][.<size>].<ext>` (README "Media"), and answers URLs
 * for the crop it holds; the crop dialog needs the whole image and a field previews a crop it has
 * not saved yet, so both are derived from that documented scheme.
 */
export function attachmentUrl(attachment: HeldAttachment, options: { size?: string; crop?: Crop | null } = {}): string {
  const held = attachment.crop ? cropSegment(attachment.crop) : '';
  const suffix = `.${attachment.extension}`;
  let base = attachment._url.endsWith(suffix) ? attachment._url.slice(0, -suffix.length) : attachment._url;
  if (held && base.endsWith(held)) base = base.slice(0, -held.length);
  const hasSizes = attachment._urls !== undefined && attachment._urls[options.size ?? ''] !== undefined;
  return `${base}${options.crop ? cropSegment(options.crop) : ''}${options.size && hasSizes ? `.${options.size}` : ''}${suffix}`;
}

/** The URL the server answered for one size of an image (`_urls`), when it has that size. */
export function sizeUrl(attachment: Attachment, size: string): string | undefined {
  const url = attachment._urls?.[size];
  return typeof url === 'string' ? url : undefined;
}

/** "34 kB", "1,2 MB": file sizes as people read them, in the interface language. */
export function formatBytes(length: number): string {
  const unit = (name: string, fractionDigits: number) =>
    new Intl.NumberFormat(currentLanguage(), { style: 'unit', unit: name, unitDisplay: 'short', maximumFractionDigits: fractionDigits });
  if (length < 1024) return unit('byte', 0).format(length);
  if (length < 1024 * 1024) return unit('kilobyte', 0).format(Math.round(length / 1024));
  return unit('megabyte', 1).format(length / (1024 * 1024));
}

/** Width and height of a thumbnail that fits a box, so the grid reserves its space before loading. */
export function fitInside(attachment: HeldAttachment, box: { width: number; height: number }): { width: number; height: number } {
  const source = attachment.crop ?? { width: attachment.width ?? box.width, height: attachment.height ?? box.height };
  const scale = Math.min(1, box.width / source.width, box.height / source.height);
  return { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
}
