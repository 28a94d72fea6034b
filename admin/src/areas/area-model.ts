import type { AreaFieldOptions, FieldSchema, Schema } from '../api/types';

/** The value of an area field as the server reads and answers it. */
export interface AreaWidget {
  _id: string;
  metaType: 'widget';
  type: string;
  content?: string;
  [field: string]: unknown;
}

export interface AreaValue {
  _id?: string;
  metaType: 'area';
  items: AreaWidget[];
}

export const richTextType = '@cms/rich-text';

/** The effective rich-text options of an area, as GET /@cms/schema reports them on the field. */
export type RichTextOptions = Required<Pick<AreaFieldOptions, 'toolbar' | 'insert' | 'styles' | 'imageStyles'>>;

/** An area field's `options` as GET /@cms/schema describes them (api/types.ts). */
export type AreaOptions = AreaFieldOptions;

export function areaOptionsOf(field: FieldSchema): AreaOptions {
  return field.options ?? { widgets: {} };
}

export function richTextOptionsOf(field: FieldSchema): RichTextOptions {
  const options = areaOptionsOf(field);
  return { toolbar: options.toolbar ?? [], insert: options.insert ?? [], styles: options.styles ?? [], imageStyles: options.imageStyles ?? [] };
}

export interface AllowedWidget {
  readonly type: string;
  readonly label: string;
}

/** Widget types the area accepts, in the schema's order, labelled by the schema. */
export function allowedWidgets(field: FieldSchema, schema: Schema | undefined): AllowedWidget[] {
  return Object.keys(areaOptionsOf(field).widgets).map((type) => ({ type, label: widgetLabel(type, schema) }));
}

export function widgetLabel(type: string, schema: Schema | undefined): string {
  return schema?.widgets[type]?.label ?? type;
}

/** Ids the server keeps (letters, digits, `-`, `_`), so error paths and keys stay stable. */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A new widget with its fields' defaults, as the server would fill them. */
export function newWidget(type: string, schema: Schema | undefined): AreaWidget {
  const widget: AreaWidget = { _id: newId(), metaType: 'widget', type };
  if (type === richTextType) widget.content = '';
  for (const field of schema?.widgets[type]?.fields ?? []) {
    if (field.def !== undefined) widget[field.name] = structuredClone(field.def);
  }
  return widget;
}

/** Reads an area value of any accepted shape (a bare array too) without copying it. */
export function areaItems(value: unknown): AreaWidget[] | undefined {
  if (Array.isArray(value)) return value as AreaWidget[];
  if (typeof value === 'object' && value !== null && Array.isArray((value as AreaValue).items)) return (value as AreaValue).items;
  return undefined;
}
