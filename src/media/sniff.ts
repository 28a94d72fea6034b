/**
 * Does a file's content match its extension? Checked on the first bytes (and, for text, on the
 * absence of NUL bytes anywhere, which the receiver records while streaming). A small table of
 * magic numbers: enough to refuse a renamed executable or a mislabelled file, not a parser.
 */

const zip = [0x50, 0x4b, 0x03, 0x04];
const ole = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

type Check = (head: Buffer) => boolean;

const startsWith = (bytes: readonly number[]): Check => (head) =>
  head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte);

const startsWithText = (text: string): Check => startsWith([...Buffer.from(text, 'latin1')]);

const webp: Check = (head) => startsWithText('RIFF')(head) && head.subarray(8, 12).toString('latin1') === 'WEBP';

const gif: Check = (head) => startsWithText('GIF87a')(head) || startsWithText('GIF89a')(head);

// At offset 0, though readers look through the first kilobyte: junk before the header is how
// polyglot files (a PDF that is also an HTML page or a zip) are made. The end is `pdf-check`'s.
const pdf: Check = (head) => /^%PDF-(1\.[0-7]|2\.0)(?!\d)/.test(head.subarray(0, 16).toString('latin1'));

const checks: Readonly<Record<string, Check>> = {
  jpg: startsWith([0xff, 0xd8, 0xff]),
  png: startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  gif,
  webp,
  pdf,
  rtf: startsWithText('{\\rtf'),
  doc: startsWith(ole),
  xls: startsWith(ole),
  ppt: startsWith(ole),
  docx: startsWith(zip),
  dotx: startsWith(zip),
  xlsx: startsWith(zip),
  xltx: startsWith(zip),
  pptx: startsWith(zip),
  potx: startsWith(zip),
  ppsx: startsWith(zip),
  sldx: startsWith(zip),
};

/** Extensions whose content is text: any bytes but NUL. SVG is text too, checked further by `svg-check`. */
const textExtensions = new Set(['txt', 'csv', 'svg']);

export function contentMatches(extension: string, head: Buffer, containsNul: boolean): boolean {
  if (textExtensions.has(extension)) return !containsNul;
  const check = checks[extension];
  return check !== undefined && check(head);
}

/** How many leading bytes `contentMatches` needs. */
export const sniffLength = 4096;
