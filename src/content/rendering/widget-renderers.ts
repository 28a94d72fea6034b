import type { SanitizedField } from '../types/piece-type.js';
import { escapeHtml, richTextWidgetType } from '../fields/rich-text.js';
import { isPlainObject } from '../fields/nested.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { FieldHtmlContext } from '../fields/field-type.js';
import { imageWidgetName } from '../types/builtin-types.js';

/** What a widget renderer may use besides the widget: its type's schema, the field types, nested area rendering. */
export interface WidgetRenderContext {
  readonly fields: readonly SanitizedField[];
  readonly fieldTypes: FieldTypeLookup;
  renderArea(area: unknown): string;
}

/** Turns one widget into HTML. Everything it interpolates must be escaped, or already sanitized. */
export type WidgetRenderer = (widget: Readonly<Record<string, unknown>>, ctx: WidgetRenderContext) => string;

/**
 * The original's rich-text widget template as it renders (its `className` option unset, the
 * default): the content in one `data-rich-text` div, with the template's line breaks and indent,
 * so that an area renders to the original's markup character for character. Rich text was
 * sanitized by the area's rules when it was stored, so it is written as it is.
 */
export const richTextRenderer: WidgetRenderer = (widget) =>
  `\n<div data-rich-text>\n  ${typeof widget.content === 'string' ? widget.content : ''}\n</div>\n`;

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Strings, numbers and booleans, or a list of them (checkboxes); anything else renders nothing. */
function renderScalar(value: unknown): string {
  const list = Array.isArray(value) ? value.map(scalarText) : [scalarText(value)];
  if (list.some((text) => text === null)) return '';
  return escapeHtml(list.join(', '));
}

/** Related documents, loaded before rendering: each title, linked to its page when it has one. */
function renderRelated(value: unknown): string {
  const docs = Array.isArray(value) ? value.filter(isPlainObject) : [];
  return docs
    .map((doc) => {
      const title = escapeHtml(scalarText(doc.title) ?? '');
      if (typeof doc._url !== 'string') return `<span class="cms-widget__related">${title}</span>`;
      return `<a class="cms-widget__related" href="${escapeHtml(doc._url)}">${title}</a>`;
    })
    .join('');
}

/**
 * A field's own HTML (areas, nested schemas, related documents) or its scalar text; a secret
 * never, even if a presented document still carried one.
 */
function renderValue(values: Readonly<Record<string, unknown>>, field: SanitizedField, ctx: WidgetRenderContext): string {
  const type = ctx.fieldTypes.get(field.type);
  if (type?.secret) return '';
  if (!type?.renderHtml) return renderScalar(values[field.name]);
  const html: FieldHtmlContext = {
    renderArea: (area) => ctx.renderArea(area),
    renderFields: (nested, fields) => renderFields(nested, fields, ctx),
    renderRelated,
  };
  return type.renderHtml(values, field, html);
}

/** One `<div class="cms-widget__field" data-field="name">` per field with something to show, in schema order. */
function renderFields(values: Readonly<Record<string, unknown>>, fields: readonly SanitizedField[], ctx: WidgetRenderContext): string {
  return fields
    .map((field) => {
      const html = renderValue(values, field, ctx);
      return html === '' ? '' : `<div class="cms-widget__field" data-field="${escapeHtml(field.name)}">${html}</div>`;
    })
    .join('');
}

/** Any configured widget type without its own renderer: its fields, escaped, inside one `div`. */
export const genericWidgetRenderer: WidgetRenderer = (widget, ctx) => {
  const type = escapeHtml(String(widget.type));
  return `<div class="cms-widget cms-widget--${type}">${renderFields(widget, ctx.fields, ctx)}</div>`;
};

/** An image size's name (a key of an image's `_urls`) and the width of its box. */
export interface ImageSizeWidth {
  readonly name: string;
  readonly width: number;
}

/**
 * `srcset` as the original's `apos.image.srcset`: the sizes narrower than the image, and the
 * first one (largest first) that is not, as images are never enlarged; '' for unsized images (SVG).
 */
function srcsetOf(attachment: Record<string, unknown>, urls: Record<string, unknown>, sizes: readonly ImageSizeWidth[]): string {
  const crop = attachment.crop;
  const width = isPlainObject(crop) && typeof crop.width === 'number' ? crop.width : attachment.width;
  if (attachment._isCroppable !== true || typeof width !== 'number') return '';
  const covering = sizes.find((size) => size.width >= width);
  const shown = sizes.filter((size) => size.width < width || size === covering);
  const entries = shown.flatMap((size) => {
    const url = urls[size.name];
    return typeof url === 'string' ? [`${url} ${Math.min(size.width, width)}w`] : [];
  });
  return entries.join(', ');
}

/**
 * The image widget: its image piece (loaded before rendering) as an `<img>` of the `full` size
 * with `srcset` and the piece's `alt`, and the caption; nothing when the image is not there
 * (unknown, archived or not visible to the caller).
 */
export function imageWidgetRenderer(sizes: readonly ImageSizeWidth[]): WidgetRenderer {
  return (widget) => {
    const image = Array.isArray(widget._image) ? widget._image.find(isPlainObject) : undefined;
    const attachment = isPlainObject(image?.attachment) ? image.attachment : undefined;
    const urls = isPlainObject(attachment?._urls) ? attachment._urls : undefined;
    if (!image || !attachment || !urls || typeof urls.full !== 'string') return '';
    const srcset = srcsetOf(attachment, urls, sizes);
    const srcsetAttribute = srcset === '' ? '' : ` srcset="${escapeHtml(srcset)}"`;
    const alt = escapeHtml(scalarText(image.alt) ?? '');
    const caption = scalarText(widget.caption) ?? '';
    const figcaption = caption === '' ? '' : `<figcaption>${escapeHtml(caption)}</figcaption>`;
    return `<figure class="cms-image-widget"><img src="${escapeHtml(urls.full)}"${srcsetAttribute} alt="${alt}">${figcaption}</figure>`;
  };
}

/**
 * The built-in renderers by widget type; types not listed use `genericWidgetRenderer`.
 * `imageSizes`: the media module's sizes, for `srcset` (none: no `srcset`).
 */
export function builtInWidgetRenderers(imageSizes: readonly ImageSizeWidth[] = []): Map<string, WidgetRenderer> {
  return new Map([
    [richTextWidgetType, richTextRenderer],
    [imageWidgetName, imageWidgetRenderer(imageSizes)],
  ]);
}
