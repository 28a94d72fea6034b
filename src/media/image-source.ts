import { InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import { imageSizes } from './image-sizes.js';

const sourceSizes: readonly string[] = [...imageSizes.map((size) => size.name), 'original'];

/** The size rich text links to when it names none, as the original's `src` route. */
const defaultSourceSize = 'full';

/**
 * The URL `GET /api/v1/@cms/image/:_id/src?size=` redirects to: the named size of an image
 * piece as presented (its crop applied), `full` by default. Rich text stores image links in that
 * form (`imageIds`), so they keep working whatever the file names.
 */
export function imageSourceUrl(image: Readonly<Record<string, unknown>>, size: unknown = defaultSourceSize): string {
  if (typeof size !== 'string' || !sourceSizes.includes(size)) {
    throw new InvalidRequestError(`size must be one of ${sourceSizes.join(', ')}`, { parameter: 'size' });
  }
  const urls = (image.attachment as { _urls?: Record<string, unknown> } | null | undefined)?._urls;
  const url = urls?.[size];
  if (typeof url !== 'string') throw new NotFoundError('The image has no file');
  return url;
}
