import type { SanitizedField } from '../types/piece-type.js';
import { escapeHtml, richTextWidgetType } from '../fields/rich-text.js';
import { isPlainObject } from '../fields/nested.js';

/** What a widget renderer may use besides the widget: its type's schema and nested area rendering. */
export interface WidgetRenderContext {
  readonly fields: readonly SanitizedField[];
  renderArea(area: unknown): string;
}

/** Turns one widget into HTML. Everything it interpolates must be escaped, or already sanitized. */
export type WidgetRenderer = (widget: Readonly<Record<string, unknown>>, ctx: WidgetRenderContext) => string;

/** Rich text was sanitized by the area's rules when it was stored, so it is written as it is. */
export const richTextRenderer: WidgetRenderer = (widget) => (typeof widget.content === 'string' ? widget.content : '');

// Never shown, even if a presented document still carried one.
const hiddenFieldTypes = new Set(['password']);

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

function renderValue(value: unknown, field: SanitizedField, ctx: WidgetRenderContext): string {
  if (hiddenFieldTypes.has(field.type)) return '';
  if (field.type === 'area') return ctx.renderArea(value);
  if (field.type === 'object') return isPlainObject(value) ? renderFields(value, field.fields, ctx) : '';
  if (field.type === 'array') {
    const items = Array.isArray(value) ? value.filter(isPlainObject) : [];
    return items.map((item) => `<div class="cms-widget__item">${renderFields(item, field.fields, ctx)}</div>`).join('');
  }
  return renderScalar(value);
}

/** One `<div class="cms-widget__field" data-field="name">` per field with something to show, in schema order. */
function renderFields(values: Readonly<Record<string, unknown>>, fields: readonly SanitizedField[], ctx: WidgetRenderContext): string {
  return fields
    .map((field) => {
      const html = renderValue(values[field.name], field, ctx);
      return html === '' ? '' : `<div class="cms-widget__field" data-field="${escapeHtml(field.name)}">${html}</div>`;
    })
    .join('');
}

/** Any configured widget type without its own renderer: its fields, escaped, inside one `div`. */
export const genericWidgetRenderer: WidgetRenderer = (widget, ctx) => {
  const type = escapeHtml(String(widget.type));
  return `<div class="cms-widget cms-widget--${type}">${renderFields(widget, ctx.fields, ctx)}</div>`;
};

/** The built-in renderers by widget type; types not listed use `genericWidgetRenderer`. */
export function builtInWidgetRenderers(): Map<string, WidgetRenderer> {
  return new Map([[richTextWidgetType, richTextRenderer]]);
}
