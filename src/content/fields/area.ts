import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { FieldFailure } from './field-type.js';
import { isValidId } from '../text.js';
import { checkCount, takeId } from './array.js';
import { checkAreaOptions, allowedWidgetTypes } from './area-options.js';
import { convertNested, findById, isPlainObject } from './nested.js';
import { richTextFromPlainText, richTextWidgetType, sanitizeRichText } from './rich-text.js';

interface AreaInput {
  readonly id: unknown;
  readonly items: readonly unknown[];
}

function readAreaInput(input: unknown): AreaInput {
  if (input === null) return { id: undefined, items: [] };
  if (typeof input === 'string') return { id: undefined, items: [richTextFromPlainText(input)] };
  if (Array.isArray(input)) return { id: undefined, items: input };
  if (isPlainObject(input) && (input.items === undefined || Array.isArray(input.items))) {
    return { id: input._id, items: input.items ?? [] };
  }
  throw new FieldFailure('invalid', 'must be an area ({ items: [...] }), an array of widgets or a string');
}

type WidgetResult = { widget: Record<string, unknown> } | { errors: FieldError[] };

interface WidgetScope {
  readonly ctx: ConvertContext;
  readonly allowed: ReadonlySet<string> | null;
  readonly existingItems: unknown;
  readonly usedIds: Set<string>;
}

function widgetError(path: string, message: string): WidgetResult {
  return { errors: [{ name: 'invalid', path, message, data: {} }] };
}

function richTextContent(raw: Record<string, unknown>): string | null {
  if (raw.content === undefined || raw.content === null) return '';
  return typeof raw.content === 'string' ? sanitizeRichText(raw.content) : null;
}

async function convertWidget(raw: unknown, index: number, scope: WidgetScope): Promise<WidgetResult> {
  if (!isPlainObject(raw)) return widgetError(String(index), 'A widget must be an object');
  const type = raw.type;
  const definition = typeof type === 'string' ? scope.ctx.widgetTypes.get(type) : undefined;
  if (typeof type !== 'string' || !definition || (scope.allowed && !scope.allowed.has(type))) {
    return widgetError(`${index}.type`, `Unknown or disallowed widget type ${String(type)}`);
  }
  const id = takeId(raw._id, scope.usedIds, scope.ctx);
  const nested = await convertNested(scope.ctx, definition.fields, raw, findById(scope.existingItems, id), String(index));
  if (!nested.ok) return { errors: nested.errors };
  const widget = { _id: id, metaType: 'widget', type, cmsPlaceholder: false, ...nested.values };
  if (type !== richTextWidgetType) return { widget };
  const content = richTextContent(raw);
  if (content === null) return widgetError(`${index}.content`, 'Rich text content must be a string of HTML');
  return { widget: { ...widget, content, permalinkIds: [], imageIds: [] } };
}

function areaId(candidate: unknown, existing: unknown, ctx: ConvertContext): string {
  if (isValidId(candidate)) return candidate;
  if (isPlainObject(existing) && isValidId(existing._id)) return existing._id;
  return ctx.newId();
}

/** Unknown and disallowed widgets are refused with their index, never dropped. */
async function convertArea(input: unknown, field: SanitizedField, ctx: ConvertContext, existing: unknown): Promise<unknown> {
  const area = readAreaInput(input);
  const existingItems = isPlainObject(existing) ? existing.items : undefined;
  const scope: WidgetScope = { ctx, allowed: allowedWidgetTypes(field.options), existingItems, usedIds: new Set() };
  const items: Record<string, unknown>[] = [];
  const errors: FieldError[] = [];
  for (const [index, raw] of area.items.entries()) {
    const result = await convertWidget(raw, index, scope);
    if ('widget' in result) items.push(result.widget);
    else errors.push(...result.errors);
  }
  if (errors.length > 0) throw new FieldFailure('invalid', 'invalid', { errors });
  checkCount(items.length, isPlainObject(field.options.options) ? field.options.options : {}, 'widgets');
  return { _id: areaId(area.id, existing, ctx), metaType: 'area', items };
}

export const areaField: FieldType = {
  name: 'area',
  definitionKeys: ['options'],
  validateDefinition: checkAreaOptions,
  defaultValue: (_field, newId) => ({ _id: newId(), metaType: 'area', items: [] }),
  isEmpty: (value) => !isPlainObject(value) || !Array.isArray(value.items) || value.items.length === 0,
  convert: convertArea,
};
