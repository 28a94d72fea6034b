import { ownProperty } from './value-schema.js';
import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldTypeLookup } from './convert-schema.js';
import { FieldFailure } from './field-type.js';
import { isValidId } from '../../core/text.js';
import { defaultsFor } from './convert-schema.js';
import { ConfigError } from '../../errors/app-error.js';
import { checkNestedFields, keyPath } from './definition-checks.js';
import { convertNested, isPlainObject, scopedAs } from './nested.js';

function storedObject(existing: unknown): Record<string, unknown> | undefined {
  return isPlainObject(existing) ? existing : undefined;
}

function objectId(input: Record<string, unknown>, existing: Record<string, unknown> | undefined, ctx: ConvertContext): string {
  if (isValidId(input._id)) return input._id;
  if (existing && isValidId(existing._id)) return existing._id;
  return ctx.newId();
}

async function convertObject(input: unknown, field: SanitizedField, ctx: ConvertContext, existing: unknown): Promise<unknown> {
  if (!isPlainObject(input)) throw new FieldFailure('invalid', 'must be an object');
  const stored = storedObject(existing);
  const result = await convertNested(ctx, field.fields, input, stored, '');
  if (!result.ok) throw new FieldFailure('invalid', 'invalid', { errors: result.errors });
  return { _id: objectId(input, stored, ctx), metaType: 'object', ...scopedAs('scopedObjectName', field), ...result.values };
}

/**
 * The default of an object is the defaults of its own fields, so this type needs the registry
 * it is registered in: it is built by `createFieldTypeRegistry` rather than exported as a constant.
 */
export function createObjectField(types: FieldTypeLookup): FieldType {
  return {
    name: 'object',
    definitionKeys: ['fields'],
    validateDefinition(definition, ctx) {
      checkNestedFields(definition, ctx, true);
      // The default is built from the nested fields' own defaults.
      if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'an object cannot have a default');
    },
    defaultValue: (field, newId) => ({ _id: newId(), metaType: 'object', ...scopedAs('scopedObjectName', field), ...defaultsFor(field.fields, types, newId) }),
    // The original's `newInstance` of an object: its fields only; the first save gives it an `_id`.
    newInstanceValue: (field, nested) => ({ [field.name]: nested(field.fields) }),
    isEmpty: (value) => value === null || value === undefined,
    convert: convertObject,
    nested: (value, field) => (isPlainObject(value) ? [{ fields: field.fields, values: value }] : []),
    renderHtml: (values, field, ctx) => {
      const value = values[field.name];
      return isPlainObject(value) ? ctx.renderFields(value, field.fields) : '';
    },
    valueSchemas(field, ctx) {
      if (ctx.shape === 'write') return ownProperty(field, ctx.fieldsObject(field.fields, { _id: { type: 'string' } }));
      return ownProperty(field, ctx.fieldsObject(field.fields, { _id: { type: 'string' }, metaType: { const: 'object' }, scopedObjectName: { type: 'string' } }));
    },
  };
}
