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

/**
 * The largest box of ratio `w / h` centred in the image (the original's `calculateAutocrop`):
 * the full width and a centred band of rows when the ratio is at least the image's, else the
 * full height and a centred band of columns. Null when the box would be empty.
 */
export function centredCrop(image: { width: number; height: number }, [w, h]: readonly [number, number]): CropBox | null {
  const ratio = w / h;
  const crop =
    ratio >= image.width / image.height
      ? { top: Math.floor((image.height - image.width / ratio) / 2), left: 0, width: image.width, height: Math.floor(image.width / ratio) }
      : { top: 0, left: Math.floor((image.width - image.height * ratio) / 2), width: Math.floor(image.height * ratio), height: image.height };
  return crop.width >= 1 && crop.height >= 1 ? crop : null;
}
