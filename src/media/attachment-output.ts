import type { AttachmentCrop, AttachmentRecord, StoredAttachment } from '../storage/storage-adapter.js';
import type { FileStorage } from './file-storage.js';
import { fileGroups, sizedImageExtensions } from './file-groups.js';
import { imageSizes } from './image-sizes.js';
import { fileKey } from './naming.js';

/** Images sharp can size and crop: every pixel format, not SVG. */
export function isSizedImage(record: Pick<AttachmentRecord, 'group' | 'extension'>): boolean {
  return isImageGroup(record.group) && sizedImageExtensions.has(record.extension);
}

function isImageGroup(group: string): boolean {
  return fileGroups.some((candidate) => candidate.name === group && candidate.image);
}

/**
 * The response form of an attachment: the record, its usage, and URLs computed now from the
 * file store (never stored, so a new base URL or store applies at once). `_url` is the file as
 * uploaded (its cropped version when `crop` is given); images also have `_urls`, one per size
 * plus `original`; an SVG's every entry is its one file. `crop` is shown when it is given, even null.
 */
export function attachmentOutput(
  files: FileStorage,
  attachment: StoredAttachment,
  crop?: AttachmentCrop | null,
): Record<string, unknown> {
  const sized = isSizedImage(attachment);
  const variant = sized && crop ? { crop } : {};
  const original = files.url(fileKey(attachment, variant));
  const output: Record<string, unknown> = { ...attachment, _isCroppable: sized, _url: original };
  if (crop !== undefined) output.crop = crop;
  if (isImageGroup(attachment.group)) {
    const urls: Record<string, string> = {};
    for (const size of imageSizes) urls[size.name] = sized ? files.url(fileKey(attachment, { ...variant, size: size.name })) : original;
    urls.original = original;
    output._urls = urls;
  }
  return output;
}

/**
 * An attachment as a document holding it with a crop shows it (the original's annotation of a
 * crop, 11.2 and 3): the URLs of the cropped files, the box as `_crop`, and the uncropped sizes
 * under `_urls.uncropped`.
 */
export function croppedAttachmentOutput(files: FileStorage, attachment: StoredAttachment, crop: AttachmentCrop): Record<string, unknown> {
  const uncropped = attachmentOutput(files, attachment)._urls;
  const output: Record<string, unknown> = { ...attachmentOutput(files, attachment, crop), _crop: crop };
  if (output._urls) output._urls = { ...(output._urls as object), uncropped };
  return output;
}

/** The keys of every file an attachment has: the original and, for sized images, each size, and the same for each crop. */
export function attachmentKeys(record: Pick<AttachmentRecord, '_id' | 'name' | 'extension' | 'group' | 'crops'>): string[] {
  if (!isSizedImage(record)) return [fileKey(record)];
  const keys: string[] = [];
  for (const crop of [null, ...record.crops]) {
    keys.push(fileKey(record, { crop }));
    for (const size of imageSizes) keys.push(fileKey(record, { crop, size: size.name }));
  }
  return keys;
}
