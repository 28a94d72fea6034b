import { ConfigError } from '../../errors/app-error.js';
import { joinPath } from '../../config/schema-check.js';
import type { ConfiguredPreview } from './module-schema.js';

/*
 * `options.preview` of a piece type (live preview): where the type's front end shows one of its
 * documents. A URL template (`https://site.example/recipes/{slug}?locale={locale}`) or a function
 * of the configuration file (`url: (doc, { locale, mode }) => string`). Checked once, at start;
 * both become one function, so the server computes every preview URL the same way (a function
 * cannot travel to the browser).
 */

/** What a preview URL is computed from besides the document. */
export interface PreviewContext {
  readonly locale: string;
  readonly mode: 'draft' | 'published';
}

/** The document as a GET answers it: its `_id`, `cmsDocId`, `slug` and every other property. */
export type PreviewDocument = Readonly<Record<string, unknown>>;

export interface PreviewOption {
  /** The front end's URL of the document; may throw or answer anything when configured as a function (checked by the caller). */
  readonly url: (doc: PreviewDocument, context: PreviewContext) => unknown;
  /** The origin every URL of a template has; null for a function, whose URLs are known only per document. */
  readonly origin: string | null;
}

/** The placeholders a URL template may hold, and the document property or context value each is filled with. */
const placeholders = {
  slug: (doc: PreviewDocument) => doc.slug,
  _id: (doc: PreviewDocument) => doc._id,
  cmsDocId: (doc: PreviewDocument) => doc.cmsDocId,
  locale: (_doc: PreviewDocument, context: PreviewContext) => context.locale,
  mode: (_doc: PreviewDocument, context: PreviewContext) => context.mode,
} as const;

type PlaceholderName = keyof typeof placeholders;

const placeholderPattern = /\{([^{}]*)\}/g;
const placeholderList = Object.keys(placeholders).map((name) => `{${name}}`).join(', ');

/** `options.preview` as configured, checked; null when the type has none. */
export function previewOptionOf(configured: ConfiguredPreview | undefined, path: string): PreviewOption | null {
  if (configured === undefined) return null;
  // Its shape (an object with a string or function `url`) was checked with the module (module-schema.ts).
  const { url } = configured;
  if (typeof url === 'function') return { url: (doc, context) => url(doc, context), origin: null };
  checkTemplate(url, joinPath(path, 'url'));
  return { url: (doc, context) => fillTemplate(url, doc, context), origin: new URL(originPart(url)).origin };
}

/**
 * A template must be an absolute http(s) URL with only known placeholders, none of them in its
 * origin: the admin posts the unsaved document to that origin alone, so it must not depend on
 * what an editor types.
 */
function checkTemplate(template: string, path: string): void {
  for (const [, name] of template.matchAll(placeholderPattern)) {
    if (!Object.hasOwn(placeholders, name!)) throw new ConfigError(path, `unknown placeholder {${name}}: use ${placeholderList}`);
  }
  if (!previewUrlOrNull(template.replace(placeholderPattern, 'x'))) {
    throw new ConfigError(path, 'must be an absolute http(s) URL, for example "https://site.example/articles/{slug}"');
  }
  if (/\{[^{}]*\}/.test(originPart(template))) throw new ConfigError(path, 'placeholders may not stand in the scheme, host or port');
}

/** `https://site.example:8080` of `https://site.example:8080/a/{slug}`: what comes before the path. */
function originPart(template: string): string {
  const afterScheme = template.indexOf('//') + 2;
  const end = template.slice(afterScheme).search(/[/?#]/);
  return end === -1 ? template : template.slice(0, afterScheme + end);
}

function fillTemplate(template: string, doc: PreviewDocument, context: PreviewContext): string {
  return template.replace(placeholderPattern, (_match, name: string) => {
    const value = placeholders[name as PlaceholderName](doc, context);
    return encodeURIComponent(typeof value === 'string' ? value : '');
  });
}

/** The absolute http(s) URL a preview option answered, or null for anything else (a function of the configuration may answer anything). */
export function previewUrlOrNull(answer: unknown): URL | null {
  if (typeof answer !== 'string' || !URL.canParse(answer)) return null;
  const parsed = new URL(answer);
  return ['http:', 'https:'].includes(parsed.protocol) ? parsed : null;
}

/**
 * What the admin's Content-Security-Policy lets its Preview pane frame (`frame-src`): the origins
 * of the templates, and any http(s) page when a type's URL is a function (its origins are not
 * known before a document is previewed). Empty: no type has a preview.
 */
export function previewFrameSources(previews: Iterable<PreviewOption | null>): string[] {
  const sources = new Set<string>();
  for (const preview of previews) {
    if (preview === null) continue;
    if (preview.origin === null) return ['https:', 'http:'];
    sources.add(preview.origin);
  }
  return [...sources];
}
