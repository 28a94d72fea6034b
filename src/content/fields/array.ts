import { ownProperty } from './value-schema.js';
import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { FieldFailure } from './field-type.js';
import { isValidId } from '../../core/text.js';
import { checkDefault, checkMinMax, checkNestedFields } from './definition-checks.js';
import { convertNested, findById, isPlainObject, maxListedErrors, scopedAs } from './nested.js';

export function checkCount(count: number, options: Readonly<Record<string, unknown>>, noun: string): void {
  if (typeof options.min === 'number' && count < options.min) {
    throw new FieldFailure('min', `must have at least ${options.min} ${noun}`, { data: { min: options.min } });
  }
  if (typeof options.max === 'number' && count > options.max) {
    throw new FieldFailure('max', `must have at most ${options.max} ${noun}`, { data: { max: options.max } });
  }
}

/** A client-chosen id is kept when valid and not yet used in this list, so edits stay stable. */
export function takeId(candidate: unknown, used: Set<string>, ctx: ConvertContext): string {
  const id = isValidId(candidate) && !used.has(candidate) ? candidate : ctx.newId();
  used.add(id);
  return id;
}

async function convertItems(input: unknown[], field: SanitizedField, ctx: ConvertContext, existing: unknown): Promise<unknown[]> {
  const used = new Set<string>();
  const items: unknown[] = [];
  const errors: FieldError[] = [];
  for (const [index, item] of input.entries()) {
    if (errors.length >= maxListedErrors) break;
    if (!isPlainObject(item)) {
      errors.push({ name: 'invalid', path: String(index), message: 'An array item must be an object', data: {} });
      continue;
    }
    const id = takeId(item._id, used, ctx);
    const result = await convertNested(ctx, field.fields, item, findById(existing, id), id);
    if (result.ok) items.push({ _id: id, metaType: 'arrayItem', ...scopedAs('scopedArrayName', field), ...result.values });
    else errors.push(...result.errors);
  }
  if (errors.length > 0) throw new FieldFailure('invalid', 'invalid', { errors });
  return items;
}

export const arrayField: FieldType = {
  name: 'array',
  definitionKeys: ['fields', 'min', 'max'],
  validateDefinition(definition, ctx) {
    checkNestedFields(definition, ctx, true);
    checkMinMax(definition, ctx, 'count');
    checkDefault(definition, ctx, (def) => {
      if (!Array.isArray(def)) throw new Error('must be an array');
    });
  },
  defaultValue: (field) => field.def ?? [],
  isEmpty: (value) => !Array.isArray(value) || value.length === 0,
  async convert(input, field, ctx, existing) {
    if (input !== null && !Array.isArray(input)) throw new FieldFailure('invalid', 'must be an array');
    const items = await convertItems(input ?? [], field, ctx, existing);
    checkCount(items.length, field.options, 'items');
    return items;
  },
  nested: (value, field) => (Array.isArray(value) ? value.filter(isPlainObject).map((values) => ({ fields: field.fields, values })) : []),
  renderHtml(values, field, ctx) {
    const items = Array.isArray(values[field.name]) ? (values[field.name] as unknown[]).filter(isPlainObject) : [];
    return items.map((item) => `<div class="cms-widget__item">${ctx.renderFields(item, field.fields)}</div>`).join('');
  },
  valueSchemas(field, ctx) {
    const { min, max } = field.options;
    const bounds = { ...(typeof min === 'number' && { minItems: min }), ...(typeof max === 'number' && { maxItems: max }) };
    if (ctx.shape === 'write') return ownProperty(field, { type: ['array', 'null'], items: ctx.fieldsObject(field.fields, { _id: { type: 'string' } }), ...bounds });
    const item = ctx.fieldsObject(field.fields, { _id: { type: 'string' }, metaType: { const: 'arrayItem' }, scopedArrayName: { type: 'string' } });
    return ownProperty(field, { type: 'array', items: item });
  },
};
