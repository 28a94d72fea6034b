import { ownProperty } from './value-schema.js';
import type { ConvertContext, FieldType, SchemaValues, SearchText, WidgetTypes } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { PayloadTooLargeError } from '../../errors/app-error.js';
import { FieldFailure } from './field-type.js';
import { isValidId } from '../../core/text.js';
import { imageTypeName } from '../types/builtin-types.js';
import { checkCount, takeId } from './array.js';
import { checkAreaOptions, allowedWidgetTypes, richTextOptionsOf } from './area-options.js';
import { LoopSlices, offLoopCharacters, sanitizeInThread } from './rich-text-threads.js';
import { convertNested, findById, isPlainObject, maxListedErrors } from './nested.js';
import {
  compileRichTextRules,
  defaultRichTextRules,
  plainTextHtml,
  richTextPlainText,
  richTextReferences,
  richTextWidgetType,
  sanitizeRichText,
  type RichTextOptions,
  type RichTextRules,
  type RichTextValue,
} from './rich-text.js';

interface AreaInput {
  readonly id: unknown;
  readonly items: readonly unknown[];
}

function readAreaInput(input: unknown): AreaInput {
  if (input === null) return { id: undefined, items: [] };
  if (Array.isArray(input)) return { id: undefined, items: input };
  if (isPlainObject(input) && (input.items === undefined || Array.isArray(input.items))) {
    return { id: input._id, items: input.items ?? [] };
  }
  throw new FieldFailure('invalid', 'must be an area ({ items: [...] }), an array of widgets or a string');
}

type WidgetResult = { widget: Record<string, unknown> } | { errors: FieldError[] };

interface AreaConversion {
  readonly ctx: ConvertContext;
  readonly field: SanitizedField;
  readonly allowed: ReadonlySet<string> | null;
  readonly existingItems: unknown;
  readonly usedIds: Set<string>;
  readonly richText: AreaRichText;
}

function widgetError(path: string, message: string): WidgetResult {
  return { errors: [{ name: 'invalid', path, message, data: {} }] };
}

// Sanitized definitions are frozen for the life of the process, so their derived rules can be kept.
const rulesByField = new WeakMap<SanitizedField, { options: RichTextOptions; rules: RichTextRules }>();

function richTextRules(field: SanitizedField): { options: RichTextOptions; rules: RichTextRules } {
  let found = rulesByField.get(field);
  if (!found) {
    const options = richTextOptionsOf(field.options);
    found = { options, rules: compileRichTextRules(options) };
    rulesByField.set(field, found);
  }
  return found;
}

function richTextHtml(raw: unknown): unknown {
  return isPlainObject(raw) && raw.type === richTextWidgetType ? (raw.content ?? '') : undefined;
}

/** The rich text of this area as stored: sanitized by this field's rules when it was saved. */
function storedRichTexts(existingItems: unknown): Set<string> {
  if (!Array.isArray(existingItems)) return new Set();
  return new Set(existingItems.map(richTextHtml).filter((html): html is string => typeof html === 'string'));
}

/** The rich text of one area's input: what is stored already, and the big texts being sanitized in threads. */
interface AreaRichText {
  readonly stored: ReadonlySet<string>;
  readonly started: ReadonlyMap<string, Promise<RichTextValue>>;
  readonly rules: RichTextRules;
}

/**
 * Counts the rich text of the input that is not stored already (an unchanged widget keeps what
 * it holds: its text is the sanitizer's own output) against `limits.documentBytes` for the whole
 * write, so an oversized body is refused before any of it is sanitized (up to 2.5 s per million
 * characters); then starts sanitizing the big ones in threads, side by side.
 */
function startRichText(items: readonly unknown[], field: SanitizedField, existingItems: unknown, ctx: ConvertContext): AreaRichText {
  const stored = storedRichTexts(existingItems);
  const changed = items.map(richTextHtml).filter((html): html is string => typeof html === 'string' && !stored.has(html));
  // Each copy counts: a text sent twice is sanitized once, but stored twice.
  spendSanitizing(changed.reduce((sum, html) => sum + html.length, 0), ctx);
  const { options, rules } = richTextRules(field);
  const started = new Map<string, Promise<RichTextValue>>();
  const threads = ctx.limits.sanitizeThreads;
  for (const html of new Set(changed)) {
    if (threads === 0 || html.length < offLoopCharacters) continue;
    const value = sanitizeInThread(html, options, threads);
    // Awaited in widget order; one never awaited (an earlier widget failed) must not go unhandled.
    value.catch(() => undefined);
    started.set(html, value);
  }
  return { stored, started, rules };
}

async function richTextValue(html: string, richText: AreaRichText): Promise<RichTextValue> {
  if (richText.stored.has(html)) return richTextReferences(html);
  return (await richText.started.get(html)) ?? sanitizeRichText(html, richText.rules);
}

function spendSanitizing(characters: number, ctx: ConvertContext): void {
  const max = ctx.limits.documentBytes;
  ctx.sanitizedCharacters.count += characters;
  if (ctx.sanitizedCharacters.count > max) {
    throw new PayloadTooLargeError(`The rich text of one document may have at most ${max} characters (limits.documentBytes)`, {
      limit: 'documentBytes',
      max,
    });
  }
}

/**
 * Sanitizes again, in place, the rich text of every widget of a stored area, by the rules of
 * its area field (the default rules for an area no field describes: rendering shows it all the
 * same). What a write stored comes out the same: sanitizing is idempotent.
 */
export function resanitizeArea(area: Record<string, unknown>, field: SanitizedField | null): void {
  if (!Array.isArray(area.items)) return;
  const rules = field ? richTextRules(field).rules : defaultRichTextRules;
  for (const widget of area.items) {
    const html = richTextHtml(widget);
    if (html === undefined) continue;
    if (typeof html !== 'string') throw new FieldFailure('invalid', 'Rich text content must be a string of HTML');
    Object.assign(widget as Record<string, unknown>, sanitizeRichText(html, rules));
  }
}

async function convertWidget(raw: unknown, index: number, conversion: AreaConversion): Promise<WidgetResult> {
  if (!isPlainObject(raw)) return widgetError(String(index), 'A widget must be an object');
  const type = raw.type;
  const definition = typeof type === 'string' ? conversion.ctx.widgetTypes.get(type) : undefined;
  if (typeof type !== 'string' || !definition || (conversion.allowed && !conversion.allowed.has(type))) {
    return widgetError(`${index}.type`, `Unknown or disallowed widget type ${String(type)}`);
  }
  const id = takeId(raw._id, conversion.usedIds, conversion.ctx);
  const nested = await convertNested(conversion.ctx, definition.fields, raw, findById(conversion.existingItems, id), String(index));
  if (!nested.ok) return { errors: nested.errors };
  const widget = { _id: id, metaType: 'widget', type, cmsPlaceholder: false, ...nested.values };
  if (type !== richTextWidgetType) return { widget };
  const html = richTextHtml(raw);
  if (typeof html !== 'string') return widgetError(`${index}.content`, 'Rich text content must be a string of HTML');
  return { widget: { ...widget, ...(await richTextValue(html, conversion.richText)) } };
}

function areaId(candidate: unknown, existing: unknown, ctx: ConvertContext): string {
  if (isValidId(candidate)) return candidate;
  if (isPlainObject(existing) && isValidId(existing._id)) return existing._id;
  return ctx.newId();
}

/**
 * A string stands for plain text, as the original's `fromPlaintext` stores it: escaped into one
 * rich-text widget that skips sanitizing (it holds only the escaping's own `<br />` and links)
 * and the area's widget list (an area whose `widgets` or `groups` name no rich text takes it
 * too); an empty string is an empty area.
 */
function plainTextArea(text: string, ctx: ConvertContext, existing: unknown): Record<string, unknown> {
  const html = plainTextHtml(text);
  const widget = { _id: ctx.newId(), metaType: 'widget', type: richTextWidgetType, cmsPlaceholder: false, ...richTextReferences(html) };
  spendSanitizing(html.length, ctx);
  return { _id: areaId(undefined, existing, ctx), metaType: 'area', items: html === '' ? [] : [widget] };
}

/** Unknown and disallowed widgets are refused with their index, never dropped. */
async function convertArea(input: unknown, field: SanitizedField, ctx: ConvertContext, existing: unknown): Promise<unknown> {
  if (typeof input === 'string') return plainTextArea(input, ctx, existing);
  const area = readAreaInput(input);
  // Before any widget is converted: each costs a conversion and a sanitizer run.
  const maxWidgets = ctx.limits.areaWidgets;
  if (area.items.length > maxWidgets) {
    throw new FieldFailure('max', `An area may have at most ${maxWidgets} widgets`, { data: { max: maxWidgets } });
  }
  const existingItems = isPlainObject(existing) ? existing.items : undefined;
  const richText = startRichText(area.items, field, existingItems, ctx);
  const conversion: AreaConversion = { ctx, field, allowed: allowedWidgetTypes(field.options), existingItems, usedIds: new Set(), richText };
  const items: Record<string, unknown>[] = [];
  const errors: FieldError[] = [];
  const slices = new LoopSlices();
  for (const [index, raw] of area.items.entries()) {
    if (errors.length >= maxListedErrors) break;
    await slices.yieldIfLong();
    const result = await convertWidget(raw, index, conversion);
    if ('widget' in result) items.push(result.widget);
    else errors.push(...result.errors);
  }
  if (errors.length > 0) throw new FieldFailure('invalid', 'invalid', { errors });
  checkCount(items.length, isPlainObject(field.options.options) ? field.options.options : {}, 'widgets');
  return { _id: areaId(area.id, existing, ctx), metaType: 'area', items };
}

/**
 * The plain text of the area's rich-text widgets, including those in areas nested in other
 * widgets. Other widgets' own fields are left out: their definitions are not at hand here.
 */
function richTexts(area: unknown): string[] {
  if (!isPlainObject(area) || !Array.isArray(area.items)) return [];
  return area.items.filter(isPlainObject).flatMap((widget) => {
    if (widget.type === richTextWidgetType) return typeof widget.content === 'string' ? [richTextPlainText(widget.content)] : [];
    return Object.entries(widget).flatMap(([key, value]) => (key.startsWith('_') ? [] : richTexts(value)));
  });
}

/** Each widget with its type's fields (rich text has none: its content is not schema data). */
function widgets(area: unknown, widgetTypes: WidgetTypes): SchemaValues[] {
  if (!isPlainObject(area) || !Array.isArray(area.items)) return [];
  return area.items.filter(isPlainObject).flatMap((widget) => {
    const definition = typeof widget.type === 'string' ? widgetTypes.get(widget.type) : undefined;
    return definition ? [{ fields: definition.fields, values: widget }] : [];
  });
}

/** The image pieces the area's own rich-text widgets show inline (`imageIds`), once each. */
function inlineImages(area: unknown): ReadonlyMap<string, readonly string[]> {
  if (!isPlainObject(area) || !Array.isArray(area.items)) return new Map();
  const ids = new Set<string>();
  for (const widget of area.items) {
    if (!isPlainObject(widget) || widget.type !== richTextWidgetType || !Array.isArray(widget.imageIds)) continue;
    for (const id of widget.imageIds) if (isValidId(id)) ids.add(id);
  }
  return ids.size === 0 ? new Map() : new Map([[imageTypeName, [...ids]]]);
}

export const areaField: FieldType = {
  name: 'area',
  definitionKeys: ['options'],
  validateDefinition: checkAreaOptions,
  defaultValue: (_field, newId) => ({ _id: newId(), metaType: 'area', items: [] }),
  isEmpty: (value) => !isPlainObject(value) || !Array.isArray(value.items) || value.items.length === 0,
  convert: convertArea,
  searchTexts: (value): SearchText[] => richTexts(value).map((text) => ({ text, weight: 'low' })),
  nested: (value, _field, widgetTypes) => widgets(value, widgetTypes),
  widgetTypesIn: (field, all) => [...(allowedWidgetTypes(field.options) ?? all)],
  inlineReferences: inlineImages,
  inlineReferenceTypes: (field) => ((allowedWidgetTypes(field.options)?.has(richTextWidgetType) ?? true) ? [imageTypeName] : []),
  renderHtml: (values, field, ctx) => ctx.renderArea(values[field.name]),
  valueSchemas(field, ctx) {
    const items = { type: 'array', items: { oneOf: ctx.areaWidgets(field) } };
    const common = { _id: { type: 'string' }, metaType: { const: 'area' }, items };
    // A string is rich text: one rich-text widget holding it.
    if (ctx.shape === 'write') return ownProperty(field, { anyOf: [{ type: 'object', properties: common }, { type: ['string', 'null'] }] });
    // renderAreas=true replaces `items` by `_rendered` HTML.
    const properties = { ...common, _rendered: { type: 'string' }, _docId: { type: 'string' }, _edit: { type: 'boolean' } };
    return ownProperty(field, { type: 'object', required: ['_id', 'metaType'], properties });
  },
};
