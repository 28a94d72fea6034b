const signatureLength = 8;
// Length, type and CRC around each chunk's data.
const chunkOverhead = 12;

/**
 * What a PNG needs to be shown as it was made: the critical chunks, colour and transparency
 * information, and the frames of an animated PNG (acTL, fcTL, fdAT). Text (tEXt, zTXt, iTXt),
 * EXIF (eXIf), the time (tIME) and every private chunk are dropped: they show nothing, and may
 * carry names, places, or a page a browser could be made to read.
 */
const keptChunks: ReadonlySet<string> = new Set([
  'IHDR', 'PLTE', 'IDAT', 'IEND',
  'tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'pHYs', 'bKGD',
  'acTL', 'fcTL', 'fdAT',
]);

/**
 * The PNG in `bytes` with its signature and kept chunks alone, up to IEND (nothing after it),
 * and whether anything was dropped. Null when the chunks cannot be walked to IEND.
 */
export function pngKnownChunks(bytes: Buffer): { bytes: Buffer; dropped: boolean } | null {
  const parts: Buffer[] = [bytes.subarray(0, signatureLength)];
  let dropped = false;
  let position = signatureLength;
  while (position + chunkOverhead <= bytes.length) {
    const end = position + chunkOverhead + bytes.readUInt32BE(position);
    if (end > bytes.length) return null;
    const type = bytes.toString('latin1', position + 4, position + 8);
    if (keptChunks.has(type)) parts.push(bytes.subarray(position, end));
    else dropped = true;
    if (type === 'IEND') return { bytes: Buffer.concat(parts), dropped: dropped || end < bytes.length };
    position = end;
  }
  return null;
}
