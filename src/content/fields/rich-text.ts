import sanitizeHtml from 'sanitize-html';
import { colorPatterns } from './color.js';
import { isValidId } from '../../core/text.js';
import { isSafeAnchor } from './anchors.js';

export const richTextWidgetType = '@cms/rich-text';

/** A `styles` entry: the block (or span) tag it produces, with optional classes ("a b"). */
export interface RichTextStyle {
  readonly tag: string;
  readonly label: string;
  readonly class?: string;
}

/** An `imageStyles` entry: a class the image tool may put on a `figure`. */
export interface RichTextImageStyle {
  readonly value: string;
  readonly label: string;
}

/** The widget options that decide what rich text may contain, as an area configures them. */
export interface RichTextOptions {
  readonly toolbar: readonly string[];
  readonly insert: readonly string[];
  readonly styles: readonly RichTextStyle[];
  readonly imageStyles: readonly RichTextImageStyle[];
}

const headingStyles = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((tag) => ({ tag, label: tag.toUpperCase() }));

/** The original's `minimumDefaultOptions`; each key an area leaves out falls back to these. */
export const defaultRichTextOptions: RichTextOptions = {
  toolbar: [
    ...['styles', '|', 'bold', 'italic', 'strike', 'underline', 'subscript', 'superscript', 'blockquote', '|'],
    ...['alignLeft', 'alignCenter', 'alignRight', 'image', 'horizontalRule', 'link', 'anchor', 'bulletList'],
    ...['orderedList', 'color'],
  ],
  insert: ['image', 'table', 'importTable', 'horizontalRule'],
  styles: [{ tag: 'p', label: 'Paragraph' }, ...headingStyles],
  imageStyles: [],
};

// The original's maps from toolbar/insert items to what the sanitizer lets through.
const itemTags: Readonly<Record<string, readonly string[]>> = {
  bold: ['b', 'strong'],
  italic: ['i', 'em'],
  strike: ['s'],
  underline: ['u'],
  link: ['a'],
  horizontalRule: ['hr'],
  bulletList: ['ul', 'li'],
  orderedList: ['ol', 'li'],
  blockquote: ['blockquote'],
  codeBlock: ['pre', 'code'],
  anchor: ['span'],
  superscript: ['sup'],
  subscript: ['sub'],
  table: ['table', 'tr', 'td', 'th', 'colgroup', 'col', 'div'],
  image: ['figure', 'img', 'figcaption'],
  color: ['span'],
};

// `target` comes from the original's link schema (its "open in new tab" checkbox).
const linkAttributes = ['href', 'name', 'title', 'rel', 'target'];
const cellAttributes = ['colspan', 'rowspan', 'colwidth'];

const itemAttributes: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  link: { a: [...linkAttributes, 'id'] },
  anchor: { span: ['id'] },
  alignLeft: { '*': ['style'] },
  alignCenter: { '*': ['style'] },
  alignRight: { '*': ['style'] },
  alignJustify: { '*': ['style'] },
  color: { '*': ['style'] },
  table: { div: ['class'], table: ['style', 'class'], col: ['style'], td: cellAttributes, th: cellAttributes },
  image: { figure: ['class'], a: linkAttributes, img: ['src', 'alt'] },
};

// The original leaves its width patterns unanchored, which would let any trailing text through.
const cssLength = /^\d{1,4}(px|em|%)$/i;
const cssVariable = /^var\(--[a-zA-Z0-9-]+\)$/;

const itemStyles: Readonly<Record<string, Readonly<Record<string, readonly RegExp[]>>>> = {
  alignLeft: { 'text-align': [/^left$/] },
  alignCenter: { 'text-align': [/^center$/] },
  alignRight: { 'text-align': [/^right$/] },
  alignJustify: { 'text-align': [/^justify$/] },
  color: { color: [...colorPatterns, cssVariable] },
  table: { 'min-width': [cssLength], 'max-width': [cssLength], width: [cssLength] },
};

/** The classes the original's table tool puts on its wrapper and table (its `apos-` prefix renamed). */
const tableClasses = { div: ['tableWrapper'], table: ['cms-rich-text-table'] };

/** Toolbar items the original's editor knows; those in no map above add nothing to allow. */
export const toolbarItemNames: ReadonlySet<string> = new Set([
  ...Object.keys(itemTags),
  ...Object.keys(itemAttributes),
  ...['styles', '|', 'undo', 'redo', 'highlight', 'importTable', 'nodes', 'marks'],
]);

/** Items of the original's insert menu. */
export const insertItemNames: ReadonlySet<string> = new Set(['image', 'table', 'importTable', 'horizontalRule']);

/** Tags a `styles` entry may name: text blocks and inline text, never scripts, forms or embeds. */
export const styleTags: ReadonlySet<string> = new Set([
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div', 'span', 'pre', 'blockquote', 'address'],
  ...['code', 'small', 'mark', 'strong', 'em', 'b', 'i', 'u', 's', 'sub', 'sup'],
]);

/** Sanitizer settings derived once from an area's rich-text options. */
export interface RichTextRules {
  readonly sanitize: Readonly<sanitizeHtml.IOptions>;
  /** Allowed tags on which an `id` survives, so a `data-anchor` can become one. */
  readonly idTags: ReadonlySet<string>;
}

function addAll<T>(map: Map<string, Set<T>>, key: string, values: Iterable<T>): void {
  const set = map.get(key) ?? new Set<T>();
  for (const value of values) set.add(value);
  map.set(key, set);
}

function toLists<T>(map: Map<string, Set<T>>): Record<string, T[]> {
  return Object.fromEntries([...map].map(([key, set]) => [key, [...set]]));
}

function styleClasses(options: RichTextOptions, items: ReadonlySet<string>): Map<string, Set<string>> {
  const classes = new Map<string, Set<string>>();
  if (items.has('styles')) {
    for (const style of options.styles) addAll(classes, style.tag, style.class?.split(/\s+/).filter(Boolean) ?? []);
  }
  if (items.has('table')) for (const [tag, names] of Object.entries(tableClasses)) addAll(classes, tag, names);
  // Always an entry, maybe empty: a tag that may carry `class` but has no list would keep any class.
  if (items.has('image')) addAll(classes, 'figure', options.imageStyles.map((style) => style.value));
  return classes;
}

/** The original's `optionsToSanitizeHtml`: tags, attributes, classes and styles per toolbar/insert item. */
export function compileRichTextRules(options: RichTextOptions): RichTextRules {
  const items = new Set([...options.toolbar, ...options.insert]);
  const tags = new Set(['p', 'br']);
  const attributes = new Map<string, Set<string>>();
  const styles = new Map<string, Set<RegExp>>();
  for (const item of items) {
    for (const tag of itemTags[item] ?? []) tags.add(tag);
    for (const [tag, names] of Object.entries(itemAttributes[item] ?? {})) addAll(attributes, tag, names);
    for (const [property, patterns] of Object.entries(itemStyles[item] ?? {})) addAll(styles, property, patterns);
  }
  if (items.has('styles')) for (const style of options.styles) tags.add(style.tag);
  const allowedAttributes = toLists(attributes);
  const idEverywhere = allowedAttributes['*']?.includes('id') ?? false;
  return {
    sanitize: {
      allowedTags: [...tags],
      allowedAttributes,
      allowedClasses: toLists(styleClasses(options, items)),
      allowedStyles: { '*': toLists(styles) },
      allowedSchemes: ['http', 'https', 'mailto', 'tel'],
      allowedSchemesByTag: {},
      // `//host/x` leaves the site like an absolute URL would, without naming a scheme.
      allowProtocolRelative: false,
    },
    idTags: new Set([...tags].filter((tag) => idEverywhere || (allowedAttributes[tag]?.includes('id') ?? false))),
  };
}

export const defaultRichTextRules: RichTextRules = compileRichTextRules(defaultRichTextOptions);

/** `data-anchor` becomes the `id` of the first element carrying it, where ids are allowed. */
function anchorToId(attribs: sanitizeHtml.Attributes, tagName: string, idTags: ReadonlySet<string>, seen: Set<string>): sanitizeHtml.Attributes {
  const { 'data-anchor': anchor, ...rest } = attribs;
  if (anchor === undefined || !isSafeAnchor(anchor) || !idTags.has(tagName) || seen.has(anchor)) return rest;
  seen.add(anchor);
  return { ...rest, id: anchor };
}

/** Ids and link names survive only when they are safe anchors (`anchors.ts`). */
function withSafeNames(attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  const { id, name, ...rest } = attribs;
  const safe: sanitizeHtml.Attributes = rest;
  if (id !== undefined && isSafeAnchor(id)) safe.id = id;
  if (name !== undefined && isSafeAnchor(name)) safe.name = name;
  return safe;
}

// The original's link tool offers "open in a new tab"; named targets would reach other windows.
const linkTargets: ReadonlySet<string> = new Set(['_blank', '_self', '_parent', '_top']);

/**
 * A link that opens another browsing context gets `rel="noopener noreferrer"` (merged with
 * the rel it has), so the page it opens cannot reach back through `window.opener`.
 */
function withSafeTarget(attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  if (attribs.target === undefined) return attribs;
  const target = attribs.target.trim().toLowerCase();
  const { target: _target, rel: given = '', ...rest } = attribs;
  if (!linkTargets.has(target)) return { ...rest, ...(given && { rel: given }) };
  // `opener` asks for the very link back that noopener cuts.
  const kept = given.toLowerCase().split(/\s+/).filter((token) => token !== '' && token !== 'opener');
  return { ...rest, target, rel: [...new Set([...kept, 'noopener', 'noreferrer'])].join(' ') };
}

/** The transform every tag goes through before the sanitizer's allow-lists apply. */
function safeAttributes(idTags: ReadonlySet<string>): sanitizeHtml.Transformer {
  const seen = new Set<string>();
  return (tagName, attribs) => {
    const named = withSafeNames(anchorToId(attribs, tagName, idTags, seen));
    return { tagName, attribs: tagName === 'a' ? withSafeTarget(named) : named };
  };
}

// Matched in the sanitized output, where attribute values are double-quoted and `"` escaped.
const permalinkPattern = /\shref="#cms-permalink-([^"?#]+)[?"]/g;
const imagePattern = /\ssrc="[^"]*?\/api\/v1\/@cms\/image\/([^"/?#]+)\/src["?#]/g;

function matchedIds(html: string, pattern: RegExp): string[] {
  const ids = [...html.matchAll(pattern)].map((match) => match[1]!).filter(isValidId);
  return [...new Set(ids)];
}

export interface RichTextValue {
  readonly content: string;
  /** Documents linked as `#cms-permalink-<cmsDocId>?...` (the original's `#apostrophe-permalink-`). */
  readonly permalinkIds: string[];
  /** Image pieces shown as `/api/v1/@cms/image/<cmsDocId>/src`. */
  readonly imageIds: string[];
}

/** Sanitizes rich text by the area's rules and collects the documents it refers to. */
export function sanitizeRichText(html: string, rules: RichTextRules = defaultRichTextRules): RichTextValue {
  return richTextReferences(sanitizeHtml(html, { ...rules.sanitize, transformTags: { '*': safeAttributes(rules.idTags) } }));
}

/** Sanitized rich text (stored, or just sanitized) with the documents it refers to. */
export function richTextReferences(content: string): RichTextValue {
  return { content, permalinkIds: matchedIds(content, permalinkPattern), imageIds: matchedIds(content, imagePattern) };
}

// Closing block tags and breaks in sanitized HTML (always lowercase, as the sanitizer writes them).
const blockBoundary = /<\/(?:p|h[1-6]|li|blockquote|pre|div|figcaption|tr|ul|ol|table)>|<br \/>|<hr \/>/g;
const textEntities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#34;': '"', '&#39;': "'" };

// What the sanitizer writes is regular enough to read without parsing it again: every `<` and
// `>` of text and of attribute values is escaped, so a tag runs from `<` to the next `>`. The
// sanitizer keeps no comment; the text of these tags, if an area allows them, is no reading text.
const tag = /<[^>]*>/g;
const nonTextElement = /<(script|style|textarea|option|xmp)\b[^>]*>[\s\S]*?<\/\1>/g;

/** The words of sanitized rich text: blocks end lines and cells are spaced, so words never merge. */
export function richTextPlainText(html: string): string {
  const spaced = html.replace(blockBoundary, '$&\n').replace(/<\/t[dh]>/g, '$& ');
  const text = spaced.replace(nonTextElement, '').replace(tag, '');
  return text
    .replace(/&(?:amp|lt|gt|quot|#34|#39);/g, (entity) => textEntities[entity]!)
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c]!);
}

/**
 * Plain text as the original's `escapeHtml(text, { pretty: true })` writes it for an area given a
 * string: `&`, `<`, `>` and `"` escaped (`&#34;`), line breaks as `<br />`, and `http(s):` URLs
 * made links. The link's `href` is the escaped URL (the original escapes it a second time, which
 * turns every `&` of a query into `&amp;amp;`). Nothing it writes can hold markup of the text's own.
 */
export function plainTextHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');
  return escaped.replace(/\r?\n/g, '<br />').replace(/https?:[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
}
