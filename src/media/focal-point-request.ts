import type { FocalPoint } from '../core/crop-box.js';
import { InvalidRequestError, ValidationError, type FieldError } from '../errors/app-error.js';
import { isPlainObject } from '../config/schema-check.js';
import { isValidId } from '../core/text.js';

const axes = ['x', 'y'] as const;

/**
 * `{ _id, focalPoint: { x, y } | null }`: the focal point in whole percent of the image's width
 * and height (0..100, as relationship crop fields hold it), null to clear it; or a 400 naming
 * each bad part.
 */
export function parseFocalPointRequest(body: unknown): { id: string; focalPoint: FocalPoint | null } {
  if (!isPlainObject(body)) throw new InvalidRequestError('The body must be an object { _id, focalPoint }');
  const errors: FieldError[] = [];
  if (!isValidId(body._id)) errors.push({ name: 'invalid', path: '_id', message: 'must be the _id of an attachment' });
  const point = body.focalPoint;
  if (point !== null && !isPlainObject(point)) {
    errors.push({ name: 'invalid', path: 'focalPoint', message: 'must be an object { x, y }, or null to clear it' });
  } else if (point !== null) {
    for (const axis of axes) {
      const value = point[axis];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100) {
        errors.push({ name: 'invalid', path: `focalPoint.${axis}`, message: 'must be an integer from 0 to 100 (percent of the image)' });
      }
    }
    const extra = Object.keys(point).filter((key) => !(axes as readonly string[]).includes(key));
    if (extra.length > 0) errors.push({ name: 'invalid', path: 'focalPoint', message: `has only x and y, not ${extra.join(', ')}` });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const focalPoint = point === null ? null : { x: (point as Record<string, number>).x!, y: (point as Record<string, number>).y! };
  return { id: body._id as string, focalPoint };
}
