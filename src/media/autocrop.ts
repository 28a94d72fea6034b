import type { AttachmentCrop, AttachmentRecord } from '../storage/storage-adapter.js';
import { InvalidRequestError, ValidationError, type FieldError } from '../errors/app-error.js';
import { isPlainObject } from '../config/schema-check.js';
import { isSizedImage } from './attachment-output.js';
import { centredCrop, cropOf, focalPointOf } from '../core/crop-box.js';

/**
 * `POST /api/v1/@cms/image/autocrop` (the original's `@apostrophecms/image/autocrop`): for each
 * image of a relationship value, the centred crop of the widget's aspect ratio, as the
 * relationship's crop `_fields`. What the original computes, laundered as it launders it.
 */

/** A relationship value's crop fields: the box, and the focal point (`x`, `y`) when one is set. */
export interface CropFields {
  top?: number;
  left?: number;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
}

export interface AutocropRequest {
  /** The images in the order given, each with the `_fields` it came with (undefined: none sent). */
  readonly images: readonly { readonly id: string; readonly fields: unknown }[];
  /** `[w, h]`; none: nothing is cropped, the relationship is answered laundered. */
  readonly aspectRatio: readonly [number, number] | null;
}

const fieldKeys = ['top', 'left', 'width', 'height', 'x', 'y'] as const;

// An `_id`, full (`<cmsDocId>:<locale>:<mode>`) or not: longer ones name no document.
const maxIdLength = 200;

/**
 * The body `{ relationship: [images], widgetOptions?: { aspectRatio?: [w, h] } }`. Entries that
 * are not `{ _id }` objects name no image and are dropped, as the original drops them; a body,
 * relationship or aspect ratio of the wrong shape, or more images than `maxImages`, is a 400.
 */
export function parseAutocropRequest(body: unknown, maxImages: number): AutocropRequest {
  if (!isPlainObject(body)) throw new InvalidRequestError('The body must be an object { relationship, widgetOptions }');
  const errors: FieldError[] = [];
  const relationship = body.relationship ?? [];
  if (!Array.isArray(relationship)) errors.push({ name: 'invalid', path: 'relationship', message: 'must be an array of images' });
  else if (relationship.length > maxImages) {
    errors.push({ name: 'invalid', path: 'relationship', message: `at most ${maxImages} images`, data: { limit: 'autocropImages', max: maxImages } });
  }
  const aspectRatio = parseAspectRatio(body.widgetOptions, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const images = (relationship as unknown[]).flatMap((entry) =>
    isPlainObject(entry) && typeof entry._id === 'string' && entry._id.length <= maxIdLength ? [{ id: entry._id, fields: entry._fields }] : [],
  );
  return { images, aspectRatio };
}

function parseAspectRatio(options: unknown, errors: FieldError[]): readonly [number, number] | null {
  if (options === undefined || options === null) return null;
  if (!isPlainObject(options)) {
    errors.push({ name: 'invalid', path: 'widgetOptions', message: 'must be an object { aspectRatio: [w, h] }' });
    return null;
  }
  const ratio = options.aspectRatio;
  if (ratio === undefined || ratio === null) return null;
  if (!Array.isArray(ratio) || ratio.length !== 2 || !ratio.every((side) => typeof side === 'number' && Number.isFinite(side) && side > 0)) {
    errors.push({ name: 'invalid', path: 'widgetOptions.aspectRatio', message: 'must be [width, height], two numbers above 0' });
    return null;
  }
  return [ratio[0], ratio[1]];
}

/**
 * The crop fields sent with an image, as the original launders them: numbers made whole, and
 * none at all when one is negative, the box is incomplete or empty, or the box does not fit the
 * image's current file (a crop of the file it had before; an SVG has no size to fit).
 */
export function launderCropFields(input: unknown, record: Pick<AttachmentRecord, 'width' | 'height'>): CropFields {
  if (!isPlainObject(input)) return {};
  const fields: CropFields = {};
  for (const key of fieldKeys) {
    const value = input[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (value < 0) return {};
    fields[key] = Math.floor(value);
  }
  const box = cropOf(fields as Record<string, unknown>);
  if (!box || box.width === 0 || box.height === 0) return {};
  // A file without pixel sizes (SVG) keeps its fields, as in the original: nothing crops it.
  const { width, height } = record;
  if (width === undefined || height === undefined) return fields;
  if (box.left + box.width > width || box.top + box.height > height) return {};
  return fields;
}

/** Two ratios within 1% of the larger one: the original leaves such a crop as it is. */
export function withinOnePercent(a: number, b: number): boolean {
  const larger = Math.max(a, b);
  return Math.abs((a * 100) / larger - (b * 100) / larger) < 1;
}

/**
 * The crop autocrop makes for an image, or null when the image stays as it is: a file that
 * cannot be cropped (SVG, GIF is croppable), or crop fields already of the ratio (within 1%).
 * An image without a crop is always cropped, as in the original. The box is centred on the focal
 * point of the relationship's fields, else of the attachment, else on the image's centre.
 */
export function autocropFor(record: AttachmentRecord, fields: CropFields, aspectRatio: readonly [number, number]): AttachmentCrop | null {
  if (!isSizedImage(record) || !record.width || !record.height) return null;
  const box = cropOf(fields as Record<string, unknown>);
  if (box && withinOnePercent(box.width / box.height, aspectRatio[0] / aspectRatio[1])) return null;
  const focalPoint = focalPointOf(fields as Record<string, unknown>) ?? record.focalPoint;
  return centredCrop({ width: record.width, height: record.height }, aspectRatio, focalPoint);
}
