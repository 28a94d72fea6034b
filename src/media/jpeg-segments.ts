// APP2 holds the ICC profile and APP14 Adobe's colour transform, both needed to show the
// pixels right; APP0 (JFIF) is a header. Every other APPn (EXIF and XMP in APP1, IPTC in
// APP13, makers' own) and COM may carry names, places, serial numbers.
const neutralMarkers: ReadonlySet<number> = new Set([0xe0, 0xe2, 0xee]);
const startOfScan = 0xda;
const endOfImage = 0xd9;
const comment = 0xfe;

/** What a walk of a JPEG's markers found. */
export interface JpegLayout {
  /** A segment that is not neutral (EXIF, XMP, IPTC, a comment...). */
  readonly hasMetadata: boolean;
  /** The offset just past the end-of-image marker: a byte from there on belongs to no image (an appended page, an archive). */
  readonly end: number;
}

/** Restart markers and TEM stand alone: no length follows them. */
function isStandalone(marker: number): boolean {
  return marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);
}

function isMetadata(marker: number): boolean {
  return marker === comment || (marker >= 0xe1 && marker <= 0xef && !neutralMarkers.has(marker));
}

/**
 * Walks the JPEG in `bytes` from its start-of-image marker to its end-of-image marker: the
 * segments are length-prefixed; each scan's entropy-coded data runs to the next marker that is
 * neither a stuffed 0xFF byte nor a restart. Null when the file is too broken to walk.
 */
export function jpegLayout(bytes: Buffer): JpegLayout | null {
  let hasMetadata = false;
  let position = 2;
  while (position + 1 < bytes.length) {
    if (bytes[position] !== 0xff) return null;
    const marker = bytes[position + 1]!;
    if (marker === 0xff) {
      // A fill byte before a marker.
      position += 1;
    } else if (marker === endOfImage) {
      return { hasMetadata, end: position + 2 };
    } else if (isStandalone(marker)) {
      position += 2;
    } else {
      if (position + 4 > bytes.length) return null;
      const length = bytes.readUInt16BE(position + 2);
      if (length < 2) return null;
      if (isMetadata(marker)) hasMetadata = true;
      position += 2 + length;
      if (marker === startOfScan) position = endOfEntropyData(bytes, position);
    }
  }
  return null;
}

/** Where the entropy-coded data starting at `from` ends: at the first 0xFF that begins a marker. */
function endOfEntropyData(bytes: Buffer, from: number): number {
  let position = from;
  for (;;) {
    position = bytes.indexOf(0xff, position);
    if (position < 0) return bytes.length;
    const next = bytes[position + 1];
    if (next !== 0x00 && !(next !== undefined && next >= 0xd0 && next <= 0xd7)) return position;
    position += 2;
  }
}
