import type { AttachmentCrop, AttachmentRecord } from '../storage/storage-adapter.js';
import { InvalidRequestError, ValidationError, type FieldError } from '../errors/app-error.js';
import { isPlainObject } from '../config/schema-check.js';
import { isValidId } from '../core/text.js';

const cropKeys = ['top', 'left', 'width', 'height'] as const;

function cropErrors(crop: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of cropKeys) {
    const value = crop[key];
    const least = key === 'width' || key === 'height' ? 1 : 0;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) {
      errors.push({ name: 'invalid', path: `crop.${key}`, message: `must be an integer of at least ${least}` });
    }
  }
  return errors;
}

/**
 * `{ _id, crop: { top, left, width, height }, annotate? }` with whole pixel values, or a 400
 * naming each bad part.
 */
export function parseCropRequest(body: unknown): { id: string; crop: AttachmentCrop; annotate: boolean } {
  if (!isPlainObject(body)) throw new InvalidRequestError('The body must be an object { _id, crop }');
  const errors: FieldError[] = [];
  if (!isValidId(body._id)) errors.push({ name: 'invalid', path: '_id', message: 'must be the _id of an attachment' });
  if (!isPlainObject(body.crop)) errors.push({ name: 'invalid', path: 'crop', message: 'must be an object { top, left, width, height }' });
  else errors.push(...cropErrors(body.crop));
  if (body.annotate !== undefined && typeof body.annotate !== 'boolean') {
    errors.push({ name: 'invalid', path: 'annotate', message: 'must be true or false' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const crop = body.crop as Record<(typeof cropKeys)[number], number>;
  const box = { top: crop.top, left: crop.left, width: crop.width, height: crop.height };
  return { id: body._id as string, crop: box, annotate: body.annotate === true };
}

/** The box must lie inside the image as displayed. */
export function assertInside(crop: AttachmentCrop, record: AttachmentRecord): void {
  const width = record.width ?? 0;
  const height = record.height ?? 0;
  if (crop.left + crop.width > width || crop.top + crop.height > height) {
    throw new InvalidRequestError(`The crop box lies outside the ${width}×${height} image`, { width, height });
  }
}

/**
 * What a crop's files are expected to take, known before any work: the stored original's bytes
 * in the share of the image the box covers. The files written are charged too once they exist.
 */
export function cropCostEstimate(crop: AttachmentCrop, record: Pick<AttachmentRecord, 'length' | 'width' | 'height'>): number {
  const area = (record.width ?? 0) * (record.height ?? 0);
  return area === 0 ? record.length : Math.ceil((record.length * crop.width * crop.height) / area);
}
