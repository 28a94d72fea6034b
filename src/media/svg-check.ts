/**
 * SVG uploads are served to browsers as documents that can run script, so anything that could
 * act is refused rather than cleaned: a clean SVG from an editor passes, a crafted one gets a
 * 400. The rules work on the text (UTF-8, no NUL bytes: the sniffer refuses those) and err on
 * the side of refusing.
 */

interface Rule {
  readonly pattern: RegExp;
  readonly reason: string;
}

const rules: readonly Rule[] = [
  { pattern: /<script/i, reason: 'scripts' },
  { pattern: /<foreignObject/i, reason: 'foreignObject elements' },
  { pattern: /<(iframe|embed|object|link|meta|base|handler|listener)\b/i, reason: 'embedding elements' },
  { pattern: /<!DOCTYPE|<!ENTITY/i, reason: 'document type declarations' },
  { pattern: /<\?xml-stylesheet/i, reason: 'style sheet instructions' },
  // Tag patterns stop at "<" as well as ">", so a file of unclosed tags is still scanned in linear time.
  // Event handler attributes: a name starting with "on" after white space inside a tag.
  { pattern: /<[^<>]*\son[a-z-]*\s*=/i, reason: 'event handler attributes' },
  { pattern: /javascript\s*:|vbscript\s*:|data\s*:\s*text\/html/i, reason: 'script URLs' },
  // Character references inside a tag could spell out a URL the rules below would not see.
  { pattern: /<[^<>]*&(?!(amp|lt|gt|quot|apos);)[^<>]*>/i, reason: 'character references in attributes' },
  { pattern: /@import/i, reason: 'style sheet imports' },
  // CSS may only refer to fragments of this document: url(#id).
  { pattern: /url\s*\(\s*(?!['"]?#)/i, reason: 'external references in styles' },
  { pattern: /attributeName\s*=\s*["']?\s*(xlink:)?href/i, reason: 'animated links' },
];

const hrefAttribute = /\b(?:xlink:)?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))/gi;

// Editors embed bitmaps this way; a raster image cannot run script.
const embeddedBitmap = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;

/** Links may only point inside the document (`#id`) or hold an embedded bitmap. */
function hasExternalHref(text: string): boolean {
  for (const match of text.matchAll(hrefAttribute)) {
    const value = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (!value.startsWith('#') && !embeddedBitmap.test(value)) return true;
  }
  return false;
}

/** Why the SVG is refused, or null when it is an SVG with nothing active or external in it. */
export function svgProblem(text: string): string | null {
  if (!/<svg[\s>]/i.test(text)) return 'it is not an SVG image';
  for (const rule of rules) {
    if (rule.pattern.test(text)) return `SVG files with ${rule.reason} are not accepted`;
  }
  if (hasExternalHref(text)) return 'SVG files with links outside the image are not accepted';
  return null;
}
