/** One size variant of an image: scaled to fit inside the box, never enlarged. */
export interface ImageSize {
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

/** The original's `imageSizes`, largest first. */
export const imageSizes: readonly ImageSize[] = [
  { name: 'max', width: 1600, height: 1600 },
  { name: 'full', width: 1140, height: 1140 },
  { name: 'two-thirds', width: 760, height: 760 },
  { name: 'one-half', width: 570, height: 700 },
  { name: 'one-third', width: 380, height: 700 },
  { name: 'one-sixth', width: 190, height: 350 },
];

/** Quality of the lossy encoders (JPEG, WebP), as the original. */
export const lossyQuality = 80;

/** The quality of an original that had to be re-encoded to lose its metadata: close to the upload. */
export const originalQuality = 92;
