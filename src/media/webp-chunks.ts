// RIFF header: "RIFF", the size of what follows it (little-endian), "WEBP".
const riffHeaderLength = 12;
// Type and size before each chunk's data; data of odd length is followed by one padding byte.
const chunkHeaderLength = 8;
// An animation frame's own header (position, size, duration, flags) before its chunks.
const frameHeaderLength = 16;

/**
 * What a WebP needs to be shown as it was made: the image data (VP8, VP8L, with ALPH for the
 * alpha of lossy data), the extended header (VP8X), the colour profile (ICCP) and the frames of
 * an animation (ANIM, ANMF). EXIF, XMP and every unknown chunk are dropped: they show nothing,
 * and may carry names, places, or a page a browser could be made to read.
 */
const keptChunks: ReadonlySet<string> = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ICCP', 'ANIM', 'ANMF']);
// Inside a frame only its image data belongs.
const keptFrameChunks: ReadonlySet<string> = new Set(['VP8 ', 'VP8L', 'ALPH']);

// VP8X flag bits that announce the EXIF and XMP chunks, never kept.
const exifFlag = 0x08;
const xmpFlag = 0x04;

interface Chunk {
  readonly fourcc: string;
  /** The chunk with its header and padding. */
  readonly bytes: Buffer;
  readonly data: Buffer;
}

/** The chunks (four-character code, whole chunk, data) of `bytes` from `start` to exactly `end`, or null when they do not walk to it. */
function chunksBetween(bytes: Buffer, start: number, end: number): Chunk[] | null {
  const chunks: Chunk[] = [];
  let position = start;
  while (position + chunkHeaderLength <= end) {
    const length = bytes.readUInt32LE(position + 4);
    const dataEnd = position + chunkHeaderLength + length;
    const chunkEnd = dataEnd + (length % 2);
    if (chunkEnd > end) return null;
    const fourcc = bytes.toString('latin1', position, position + 4);
    chunks.push({ fourcc, bytes: bytes.subarray(position, chunkEnd), data: bytes.subarray(position + chunkHeaderLength, dataEnd) });
    position = chunkEnd;
  }
  return position === end ? chunks : null;
}

function chunkHeader(fourcc: string, length: number): Buffer {
  const header = Buffer.alloc(chunkHeaderLength);
  header.write(fourcc, 0, 'latin1');
  header.writeUInt32LE(length, 4);
  return header;
}

/** An animation frame without its unknown chunks, or null when its chunks cannot be walked. */
function cleanFrame(frame: Chunk): { bytes: Buffer; dropped: boolean } | null {
  if (frame.data.length < frameHeaderLength) return null;
  const inner = chunksBetween(frame.data, frameHeaderLength, frame.data.length);
  if (!inner) return null;
  const kept = inner.filter((chunk) => keptFrameChunks.has(chunk.fourcc));
  if (kept.length === inner.length) return { bytes: frame.bytes, dropped: false };
  const data = Buffer.concat([frame.data.subarray(0, frameHeaderLength), ...kept.map((chunk) => chunk.bytes)]);
  return { bytes: Buffer.concat([chunkHeader('ANMF', data.length), data]), dropped: true };
}

/** The extended header with the EXIF and XMP flags cleared: those chunks are gone. */
function cleanHeader(header: Chunk): { bytes: Buffer; dropped: boolean } | null {
  if (header.data.length < 1) return null;
  const flags = header.data[0]!;
  const cleared = flags & ~(exifFlag | xmpFlag);
  if (cleared === flags) return { bytes: header.bytes, dropped: false };
  const bytes = Buffer.from(header.bytes);
  bytes[chunkHeaderLength] = cleared;
  return { bytes, dropped: true };
}

function cleanChunk(chunk: Chunk): { bytes: Buffer; dropped: boolean } | null {
  if (chunk.fourcc === 'ANMF') return cleanFrame(chunk);
  if (chunk.fourcc === 'VP8X') return cleanHeader(chunk);
  return { bytes: chunk.bytes, dropped: false };
}

/**
 * The WebP in `bytes` with its kept chunks alone, the RIFF size and the VP8X flags written to
 * match, nothing after the RIFF's end; and whether anything was dropped or changed. Null when
 * the chunks cannot be walked to the RIFF's end.
 */
export function webpKnownChunks(bytes: Buffer): { bytes: Buffer; dropped: boolean } | null {
  if (bytes.length < riffHeaderLength) return null;
  const end = chunkHeaderLength + bytes.readUInt32LE(4);
  if (end > bytes.length) return null;
  const chunks = chunksBetween(bytes, riffHeaderLength, end);
  if (!chunks) return null;
  let dropped = end < bytes.length;
  const parts: Buffer[] = [];
  for (const chunk of chunks) {
    if (!keptChunks.has(chunk.fourcc)) {
      dropped = true;
      continue;
    }
    const cleaned = cleanChunk(chunk);
    if (!cleaned) return null;
    parts.push(cleaned.bytes);
    dropped ||= cleaned.dropped;
  }
  if (!dropped) return { bytes: bytes.subarray(0, end), dropped: false };
  const body = Buffer.concat(parts);
  const header = Buffer.from(bytes.subarray(0, riffHeaderLength));
  header.writeUInt32LE(4 + body.length, 4);
  return { bytes: Buffer.concat([header, body]), dropped: true };
}
