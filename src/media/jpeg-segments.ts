import { open } from 'node:fs/promises';

// APP2 holds the ICC profile and APP14 Adobe's colour transform, both needed to show the
// pixels right; APP0 (JFIF) is a header. Every other APPn (EXIF and XMP in APP1, IPTC in
// APP13, makers' own) and COM may carry names, places, serial numbers.
const neutralMarkers: ReadonlySet<number> = new Set([0xe0, 0xe2, 0xee]);
const startOfScan = 0xda;
const comment = 0xfe;

/**
 * Whether the JPEG at `path` has a metadata segment that is not neutral, found by walking the
 * segment headers up to the image data (a few reads of 4 bytes: the segments before the scan
 * are length-prefixed). A file too broken to walk counts as having one.
 */
export async function jpegHasMetadataSegments(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(4);
    let position = 2;
    for (;;) {
      const { bytesRead } = await file.read(header, 0, 4, position);
      if (bytesRead < 4 || header[0] !== 0xff) return true;
      const marker = header[1]!;
      if (marker === startOfScan) return false;
      if (marker === comment || (marker >= 0xe1 && marker <= 0xef && !neutralMarkers.has(marker))) return true;
      position += 2 + header.readUInt16BE(2);
    }
  } finally {
    await file.close();
  }
}
