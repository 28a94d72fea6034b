import type { Crop, FocalPoint } from './media-api';

/** The crop box's geometry, in whole pixels of the upright image: pure, so the dialog stays small. */
export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** Keeps a box inside the image and at least one pixel big; rounds to whole pixels. */
export function clampCrop(crop: Crop, image: ImageSize): Crop {
  const width = Math.min(Math.max(1, Math.round(crop.width)), image.width);
  const height = Math.min(Math.max(1, Math.round(crop.height)), image.height);
  const left = Math.min(Math.max(0, Math.round(crop.left)), image.width - width);
  const top = Math.min(Math.max(0, Math.round(crop.top)), image.height - height);
  return { top, left, width, height };
}

/**
 * Where the box starts: the crop the image already has, else the whole image less a margin,
 * centred on the focal point when there is one (kept inside the image).
 */
export function initialCrop(existing: Crop | null | undefined, image: ImageSize, focalPoint?: FocalPoint | null): Crop {
  if (existing) return clampCrop(existing, image);
  const width = image.width - 2 * Math.floor(image.width / 10);
  const height = image.height - 2 * Math.floor(image.height / 10);
  const centre = focalPoint ?? { x: 50, y: 50 };
  return clampCrop({ top: (image.height * centre.y) / 100 - height / 2, left: (image.width * centre.x) / 100 - width / 2, width, height }, image);
}

/** The focal point (whole percent) where a pointer event falls on an element showing the whole image. */
export function focalPointAt(event: { clientX: number; clientY: number }, rect: { left: number; top: number; width: number; height: number }): FocalPoint {
  const percent = (offset: number, length: number) => Math.min(100, Math.max(0, Math.round((offset / length) * 100)));
  return { x: percent(event.clientX - rect.left, rect.width), y: percent(event.clientY - rect.top, rect.height) };
}

/** An arrow key moves the focal point by 5%; undefined for other keys. */
export function focalPointAfterKey(point: FocalPoint, key: string): FocalPoint | undefined {
  const delta: Record<string, [number, number]> = { ArrowLeft: [-5, 0], ArrowRight: [5, 0], ArrowUp: [0, -5], ArrowDown: [0, 5] };
  const [dx, dy] = delta[key] ?? [];
  if (dx === undefined || dy === undefined) return undefined;
  const clamp = (value: number) => Math.min(100, Math.max(0, value));
  return { x: clamp(point.x + dx), y: clamp(point.y + dy) };
}

/** Moves the box by (dx, dy), keeping its size. */
export function moveCrop(crop: Crop, dx: number, dy: number, image: ImageSize): Crop {
  return clampCrop({ ...crop, left: crop.left + dx, top: crop.top + dy }, image);
}

/** Grows or shrinks the box from its bottom-right corner, keeping its top-left corner. */
export function resizeCrop(crop: Crop, dw: number, dh: number, image: ImageSize): Crop {
  return clampCrop({
    ...crop,
    width: Math.min(crop.width + dw, image.width - crop.left),
    height: Math.min(crop.height + dh, image.height - crop.top),
  }, image);
}

/** Arrow keys: move by `step`; with Shift, resize instead. Answers undefined for other keys. */
export function cropAfterKey(crop: Crop, key: string, shift: boolean, step: number, image: ImageSize): Crop | undefined {
  const delta: Record<string, [number, number]> = {
    ArrowLeft: [-step, 0],
    ArrowRight: [step, 0],
    ArrowUp: [0, -step],
    ArrowDown: [0, step],
  };
  const [dx, dy] = delta[key] ?? [];
  if (dx === undefined || dy === undefined) return undefined;
  return shift ? resizeCrop(crop, dx, dy, image) : moveCrop(crop, dx, dy, image);
}
