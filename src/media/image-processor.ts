import { readFile, writeFile } from 'node:fs/promises';
import type { Sharp } from 'sharp';
import type { AttachmentCrop } from '../storage/storage-adapter.js';
import { lossyQuality, originalQuality } from './image-sizes.js';
import { jpegLayout } from './jpeg-segments.js';
import { pngKnownChunks } from './png-chunks.js';
import { webpKnownChunks } from './webp-chunks.js';

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
   * without enlarging, encoded in `format`. One at a time: resolves when all are written, rejects
   * at the first that fails (the caller removes those written).
   */
  render(args: { source: string; format: ImageFormat; crop?: AttachmentCrop; outputs: readonly ImageOutput[] }): Promise<void>;
  /**
   * When `source` carries metadata (EXIF with its GPS position, owner and serial numbers, XMP,
   * IPTC, comments, text chunks), writes to `output` the same image without it: oriented upright,
   * ICC profile kept, every frame kept, lossless formats losslessly. A JPEG, PNG or WebP with
   * nothing else beyond its image (bytes after its end, unknown chunks) is written without them,
   * byte for byte otherwise. Resolves true when it wrote `output`, false when `source` has nothing to
   * remove and may be kept as it is.
   */
  removeMetadata(args: { source: string; format: ImageFormat; output: string }): Promise<boolean>;
}

const formatOfSharp: Readonly<Record<string, ImageFormat>> = { jpeg: 'jpg', png: 'png', gif: 'gif', webp: 'webp' };

// Larger inputs are refused before decoding: 100 megapixels is beyond any camera's photo, and a
// small file claiming a huge canvas (a decompression bomb) stops here.
const maxInputPixels = 100_000_000;

type SharpFactory = (typeof import('sharp'))['default'];
let loadingSharp: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded by the first image that needs it: libvips and its threads hold about 10 MiB
 * that a server serving only documents never needs (docs/reference/stores-and-processes.md).
 */
function loadSharp(): Promise<SharpFactory> {
  loadingSharp ??= import('sharp').then(({ default: sharp }) => {
    // Each upload is decoded once and never again, so the cache would only hold memory and open files.
    sharp.cache(false);
    return sharp;
  });
  return loadingSharp;
}

/** Animations keep every frame; `failOn: 'warning'` refuses truncated or corrupt data. */
async function open(path: string, format?: ImageFormat): Promise<Sharp> {
  const animated = format === 'gif' || format === 'webp';
  const sharp = await loadSharp();
  return sharp(path, { animated, limitInputPixels: maxInputPixels, failOn: 'warning' });
}

function encode(pipeline: Sharp, format: ImageFormat, quality = lossyQuality): Sharp {
  switch (format) {
    case 'jpg':
      return pipeline.jpeg({ quality });
    case 'webp':
      return pipeline.webp({ quality });
    case 'png':
      return pipeline.png();
    case 'gif':
      return pipeline.gif();
  }
}

/**
 * Does the image carry metadata sharp sees? GIF is always rewritten: sharp shows none of its
 * comment or application blocks (where XMP goes), so there is no telling.
 */
async function hasMetadata(path: string, format: ImageFormat): Promise<boolean> {
  if (format === 'gif') return true;
  const metadata = await (await open(path)).metadata();
  return Boolean(metadata.exif || metadata.xmp || metadata.iptc || metadata.tifftagPhotoshop || metadata.comments?.length);
}

/**
 * The bytes of a JPEG, PNG or WebP that its format needs: a JPEG up to its end-of-image marker,
 * a PNG's known chunks up to IEND, a WebP's known chunks up to its RIFF's end (its size and
 * flags rewritten to match). `unchanged` when that is the whole file (and for GIF), `reencode`
 * when only decoding and encoding again cleans it: a JPEG metadata segment (comments do not
 * show in sharp's metadata; EXIF carries the orientation to apply), or a file too broken to
 * walk. The file is read whole: it is at most the upload limit, and sharp decodes it into more
 * than that anyway.
 */
async function formatBytes(path: string, format: ImageFormat): Promise<Buffer | 'unchanged' | 'reencode'> {
  if (format === 'gif') return 'unchanged';
  const bytes = await readFile(path);
  if (format === 'jpg') {
    const layout = jpegLayout(bytes);
    if (!layout || layout.hasMetadata) return 'reencode';
    return layout.end < bytes.length ? bytes.subarray(0, layout.end) : 'unchanged';
  }
  const known = format === 'png' ? pngKnownChunks(bytes) : webpKnownChunks(bytes);
  if (!known) return 'reencode';
  return known.dropped ? known.bytes : 'unchanged';
}

export function createSharpImageProcessor(): ImageProcessor {
  return {
    async probe(path) {
      // Outside the try: sharp failing to load is the server's fault, not an unreadable image.
      const image = await open(path);
      try {
        const metadata = await image.metadata();
        const format = formatOfSharp[metadata.format ?? ''];
        const upright = metadata.autoOrient;
        if (!format || !upright?.width || !upright.height) return null;
        return { format, width: upright.width, height: upright.height };
      } catch {
        return null;
      }
    },

    async render({ source, format, crop, outputs }) {
      const base = (await open(source, format)).autoOrient();
      if (crop) base.extract({ left: crop.left, top: crop.top, width: crop.width, height: crop.height });
      // Each clone is a pipeline of its own, run one after the other: a pipeline holds one of
      // libuv's threads, which file reads and password hashes wait for, while libvips already
      // spreads its work over several cores. One render thus holds one thread, whatever the sizes.
      for (const output of outputs) {
        const pipeline = base.clone();
        if (output.box) pipeline.resize({ ...output.box, fit: 'inside', withoutEnlargement: true });
        await encode(pipeline, format).toFile(output.path);
      }
    },

    async removeMetadata({ source, format, output }) {
      const bytes = await formatBytes(source, format);
      if (bytes === 'reencode' || (await hasMetadata(source, format))) {
        // sharp writes no metadata unless asked: the ICC profile is asked for, nothing else.
        await encode((await open(source, format)).autoOrient().keepIccProfile(), format, originalQuality).toFile(output);
        return true;
      }
      if (bytes === 'unchanged') return false;
      await writeFile(output, bytes);
      return true;
    },
  };
}
