import type { ConvertContext } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { ValidationError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';

export { isPlainObject };

/**
 * Items or widgets whose errors are listed before converting stops: enough to fix a form, and an
 * answer that stays small when every one of thousands of items is wrong.
 */
export const maxListedErrors = 50;

export type NestedResult = { ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldError[] };

/** Converts a nested schema, its errors re-pathed under `prefix` (`<itemId>.<subfield>`). */
export async function convertNested(
  ctx: ConvertContext,
  fields: readonly SanitizedField[],
  input: Record<string, unknown>,
  existing: Record<string, unknown> | undefined,
  prefix: string,
): Promise<NestedResult> {
  try {
    return { ok: true, values: await ctx.convertSchema(fields, input, existing) };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { ok: false, errors: error.errors.map((e) => repath(e, prefix)) };
  }
}

export function repath(error: FieldError, prefix: string): FieldError {
  return { ...error, path: prefix ? `${prefix}.${error.path}` : error.path };
}

/** Finds the stored nested item (array item, widget) with this `_id`, to carry its secrets and ids. */
export function findById(items: unknown, id: string): Record<string, unknown> | undefined {
  if (!Array.isArray(items)) return undefined;
  return items.find((item): item is Record<string, unknown> => isPlainObject(item) && item._id === id);
}

/** The field's `scopedName` under the property the original stores it as, when the field has one. */
export function scopedAs(property: 'scopedArrayName' | 'scopedObjectName', field: SanitizedField): Record<string, string> {
  return field.scopedName === undefined ? {} : { [property]: field.scopedName };
}
