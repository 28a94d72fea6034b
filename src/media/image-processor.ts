import sharp, { type Sharp } from 'sharp';
import type { AttachmentCrop } from '../storage/storage-adapter.js';
import { lossyQuality } from './image-sizes.js';

export type ImageFormat = 'jpg' | 'png' | 'gif' | 'webp';

export interface ImageInfo {
  readonly format: ImageFormat;
  /** Size as displayed: EXIF orientation applied; the first frame of an animation. */
  readonly width: number;
  readonly height: number;
}

/** One file to write; without `box` the image is written at its own (cropped) size. */
export interface ImageOutput {
  readonly path: string;
  readonly box?: { readonly width: number; readonly height: number };
}

/** Decoding and encoding of the sized image formats; the media service knows nothing of sharp. */
export interface ImageProcessor {
  /** The image's format and displayed size, or null when the file is not a readable image. */
  probe(path: string): Promise<ImageInfo | null>;
  /**
   * Writes every output from `source`: oriented upright, cropped when asked, fit inside its box
   * without enlarging, encoded in `format`. Resolves when all are written; rejects when any fails.
   */
  render(args: { source: string; format: ImageFormat; crop?: AttachmentCrop; outputs: readonly ImageOutput[] }): Promise<void>;
}

const formatOfSharp: Readonly<Record<string, ImageFormat>> = { jpeg: 'jpg', png: 'png', gif: 'gif', webp: 'webp' };

// Larger inputs are refused before decoding: 100 megapixels is beyond any camera's photo, and a
// small file claiming a huge canvas (a decompression bomb) stops here.
const maxInputPixels = 100_000_000;

// Each upload is decoded once and never again, so the cache would only hold memory and open files.
sharp.cache(false);

/** Animations keep every frame; `failOn: 'warning'` refuses truncated or corrupt data. */
function open(path: string, format?: ImageFormat): Sharp {
  const animated = format === 'gif' || format === 'webp';
  return sharp(path, { animated, limitInputPixels: maxInputPixels, failOn: 'warning' });
}

function encode(pipeline: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'jpg':
      return pipeline.jpeg({ quality: lossyQuality });
    case 'webp':
      return pipeline.webp({ quality: lossyQuality });
    case 'png':
      return pipeline.png();
    case 'gif':
      return pipeline.gif();
  }
}

export function createSharpImageProcessor(): ImageProcessor {
  return {
    async probe(path) {
      try {
        const metadata = await open(path).metadata();
        const format = formatOfSharp[metadata.format ?? ''];
        const upright = metadata.autoOrient;
        if (!format || !upright?.width || !upright.height) return null;
        return { format, width: upright.width, height: upright.height };
      } catch {
        return null;
      }
    },

    async render({ source, format, crop, outputs }) {
      // One decoder set up once; each clone is its own pipeline, run by sharp's thread pool.
      const base = open(source, format).autoOrient();
      if (crop) base.extract({ left: crop.left, top: crop.top, width: crop.width, height: crop.height });
      // Settled, not raced: when one output fails, the others are finished before the caller cleans up.
      const results = await Promise.allSettled(
        outputs.map((output) => {
          const pipeline = base.clone();
          if (output.box) pipeline.resize({ ...output.box, fit: 'inside', withoutEnlargement: true });
          return encode(pipeline, format).toFile(output.path);
        }),
      );
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
    },
  };
}
