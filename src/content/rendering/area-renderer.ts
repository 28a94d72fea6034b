import type { SanitizedField } from '../types/piece-type.js';
import { isPlainObject } from '../fields/nested.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import { builtInWidgetRenderers, genericWidgetRenderer, type WidgetRenderer } from './widget-renderers.js';

/** `replace`: each area becomes its HTML, without `items`; `inline`: each widget gets its own HTML. */
export type RenderMode = 'replace' | 'inline';

export type WidgetTypeDefinitions = ReadonlyMap<string, { readonly fields: readonly SanitizedField[] }>;

type Output = Record<string, unknown>;
type Widget = Readonly<Record<string, unknown>>;

/**
 * Renders the areas of presented documents, as the original's `renderDocsAreas` does for
 * `render-areas`, in the structure of its templates for a reader who is not editing (`apos-`
 * classes renamed `cms-`):
 *
 *   area       <div \n  class="cms-area"\n  >…each widget's HTML, one after another…</div>
 *   rich text  \n<div data-rich-text>\n  …stored (sanitized) content…\n</div>\n
 *
 * with the line breaks and indents the original's templates leave (its leading blank lines, left
 * by template comments, trimmed), as its own `renderArea` test expects them.
 *
 * Any other configured type renders its fields, escaped (`genericWidgetRenderer`), or its own
 * renderer's HTML (images). Widgets of unconfigured types render nothing. In `inline` mode a
 * widget's `_rendered` is that same HTML of the widget alone.
 */
export class AreaRenderer {
  readonly #widgetTypes: WidgetTypeDefinitions;
  readonly #fieldTypes: FieldTypeLookup;
  readonly #renderers: ReadonlyMap<string, WidgetRenderer>;

  constructor(
    widgetTypes: WidgetTypeDefinitions,
    fieldTypes: FieldTypeLookup,
    renderers: ReadonlyMap<string, WidgetRenderer> = builtInWidgetRenderers(),
  ) {
    this.#widgetTypes = widgetTypes;
    this.#fieldTypes = fieldTypes;
    this.#renderers = renderers;
  }

  /**
   * A copy of `doc` (the input is not changed) with its outermost areas rendered: areas in
   * arrays and objects too, but not areas nested in a widget (rendered as part of their parent)
   * nor anything under a `_`-prefixed key (relationships, parents...). `replace` keeps the
   * area's other properties (`_id`, `metaType`, `_docId`, `_edit`) beside `_rendered`.
   */
  renderDocument(doc: Output, mode: RenderMode): Output {
    return this.#walk(doc, mode) as Output;
  }

  /** The HTML of one area (its widgets in order); '' for anything that is not an area. */
  renderArea(area: unknown): string {
    const widgets = this.#widgetsOf(area).map((widget) => this.#renderWidget(widget) ?? '');
    return isPlainObject(area) ? `<div \n  class="cms-area"\n  >${widgets.join('')}</div>` : '';
  }

  #walk(value: unknown, mode: RenderMode): unknown {
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, mode));
    if (!isPlainObject(value)) return value;
    if (value.metaType === 'area') return mode === 'replace' ? this.#replaced(value) : this.#inlined(value);
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, key.startsWith('_') ? child : this.#walk(child, mode)]),
    );
  }

  #replaced(area: Output): Output {
    const { items: _items, ...rest } = area;
    return { ...rest, _rendered: this.renderArea(area) };
  }

  #inlined(area: Output): Output {
    const items = this.#widgetsOf(area).map((widget) => ({ ...widget, _rendered: this.#renderWidget(widget) ?? '' }));
    return { ...area, items };
  }

  #widgetsOf(area: unknown): Widget[] {
    return isPlainObject(area) && Array.isArray(area.items) ? area.items.filter(isPlainObject) : [];
  }

  /** Null when the widget's type is not configured (a stale widget), as the original renders nothing. */
  #renderWidget(widget: Widget): string | null {
    const type = widget.type;
    const definition = typeof type === 'string' ? this.#widgetTypes.get(type) : undefined;
    if (typeof type !== 'string' || !definition) return null;
    const render = this.#renderers.get(type) ?? genericWidgetRenderer;
    return render(widget, { fields: definition.fields, fieldTypes: this.#fieldTypes, renderArea: (nested) => this.renderArea(nested) });
  }
}
