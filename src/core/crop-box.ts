/**
 * Crop boxes of images, as the crop endpoint, autocrop and relationship crop fields share them:
 * pixels of the image as displayed (EXIF orientation applied). The shape of `AttachmentCrop`.
 */
export interface CropBox {
  readonly top: number;
  readonly left: number;
  readonly width: number;
  readonly height: number;
}

const boxKeys = ['top', 'left', 'width', 'height'] as const;

/** The box of crop fields (a relationship's `_fields`, a crop request) when they hold all four sides as numbers. */
export function cropOf(fields: Readonly<Record<string, unknown>>): CropBox | null {
  if (!boxKeys.every((key) => typeof fields[key] === 'number')) return null;
  return { top: fields.top as number, left: fields.left as number, width: fields.width as number, height: fields.height as number };
}

export function sameCrop(a: CropBox, b: CropBox): boolean {
  return boxKeys.every((key) => a[key] === b[key]);
}

/** Whether the box lies inside an image of this size, and is not empty. */
export function fitsInside(box: CropBox, image: { readonly width: number; readonly height: number }): boolean {
  return box.width >= 1 && box.height >= 1 && box.left + box.width <= image.width && box.top + box.height <= image.height;
}

/** A point of an image in percent of its width (`x`) and height (`y`), 0..100: where its subject is. */
export interface FocalPoint {
  readonly x: number;
  readonly y: number;
}

/** The focal point of crop fields (a relationship's `_fields`), when both coordinates are set. */
export function focalPointOf(fields: Readonly<Record<string, unknown>>): FocalPoint | null {
  return typeof fields.x === 'number' && typeof fields.y === 'number' ? { x: fields.x, y: fields.y } : null;
}

/**
 * The largest box of ratio `w / h` in the image (the original's `calculateAutocrop`): the full
 * width and a band of rows when the ratio is at least the image's, else the full height and a
 * band of columns. The band is centred, or with a focal point centred on it as far as the image
 * allows (clamped to its edges). Null when the box would be empty.
 */
export function centredCrop(image: { width: number; height: number }, [w, h]: readonly [number, number], focalPoint?: FocalPoint | null): CropBox | null {
  const ratio = w / h;
  const fullWidth = ratio >= image.width / image.height;
  // The band's exact length places a centred band as the original does; the box has whole pixels.
  const exactWidth = fullWidth ? image.width : image.height * ratio;
  const exactHeight = fullWidth ? image.width / ratio : image.height;
  const width = Math.floor(exactWidth);
  const height = Math.floor(exactHeight);
  if (width < 1 || height < 1) return null;
  const centre = focalPoint ?? { x: 50, y: 50 };
  return {
    top: bandStart(image.height, exactHeight, height, centre.y),
    left: bandStart(image.width, exactWidth, width, centre.x),
    width,
    height,
  };
}

/** Where a band of `exact` (whole: `length`) pixels starts along a side of `side` pixels, centred on `percent` of it, kept inside. */
function bandStart(side: number, exact: number, length: number, percent: number): number {
  const start = Math.floor((side * percent) / 100 - exact / 2);
  return Math.min(Math.max(start, 0), side - length);
}
