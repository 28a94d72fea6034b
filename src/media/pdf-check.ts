import { open } from 'node:fs/promises';

/**
 * Is the file structurally a PDF, as far as a reader finds its way into one? The header is
 * checked by the sniffer (`%PDF-1.x` or `%PDF-2.0` at offset 0); here the end: a reader starts
 * from the last `startxref` before `%%EOF` in the final kilobyte, and that offset must land on
 * a cross-reference table (`xref`) or stream (`<n> <gen> obj`) inside the file. Not a parser:
 * enough to refuse text that merely mentions `%PDF-`, or a truncated download.
 */

// Readers look for the end marker this far from the end (trailing junk some generators write).
const tailLength = 1024;
const startxrefAtEnd = /startxref\s+(\d{1,15})\s+%%EOF\s*$/;
const crossReference = /^\s*(xref|\d{1,10}\s+\d{1,5}\s+obj)\b/;

export async function pdfFileProblem(path: string, length: number): Promise<string | null> {
  const file = await open(path, 'r');
  try {
    const read = async (position: number, size: number) => {
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await file.read(buffer, 0, size, position);
      return buffer.subarray(0, bytesRead).toString('latin1');
    };
    const tail = await read(Math.max(0, length - tailLength), Math.min(length, tailLength));
    const end = tail.lastIndexOf('%%EOF');
    if (end < 0) return 'it has no end-of-file marker (truncated?)';
    const match = startxrefAtEnd.exec(tail.slice(0, end + '%%EOF'.length));
    const offset = match ? Number(match[1]) : Number.NaN;
    if (!(offset < length)) return 'its cross-reference offset is missing or outside the file';
    if (!crossReference.test(await read(offset, 64))) return 'its cross-reference offset does not point at a cross-reference';
    return null;
  } finally {
    await file.close();
  }
}
