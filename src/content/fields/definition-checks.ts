import type { DefinitionContext } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';

/** Boot-time checks of definition keys shared by several field types. */

export function keyPath(ctx: DefinitionContext, key: string): string {
  return ctx.path ? `${ctx.path}.${key}` : key;
}

export function checkOptionalBoolean(definition: Record<string, unknown>, key: string, ctx: DefinitionContext): void {
  const value = definition[key];
  if (value !== undefined && typeof value !== 'boolean') throw new ConfigError(keyPath(ctx, key), 'must be true or false');
}

export function checkOptionalNumber(definition: Record<string, unknown>, key: string, ctx: DefinitionContext): void {
  const value = definition[key];
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    throw new ConfigError(keyPath(ctx, key), 'must be a number');
  }
}

/** A length or item count: a non-negative integer. */
export function checkOptionalCount(definition: Record<string, unknown>, key: string, ctx: DefinitionContext): void {
  const value = definition[key];
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
    throw new ConfigError(keyPath(ctx, key), 'must be a non-negative integer');
  }
}

/** `min` and `max` as counts (lengths, items) or as plain numbers (numeric fields). */
export function checkMinMax(definition: Record<string, unknown>, ctx: DefinitionContext, kind: 'count' | 'number'): void {
  const check = kind === 'count' ? checkOptionalCount : checkOptionalNumber;
  check(definition, 'min', ctx);
  check(definition, 'max', ctx);
  const { min, max } = definition;
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    throw new ConfigError(keyPath(ctx, 'min'), 'must not be greater than max');
  }
}

/** `fields: { add: {...} }`, sanitized with the same rules as a top-level schema. */
export function checkNestedFields(definition: Record<string, unknown>, ctx: DefinitionContext, required: boolean): void {
  const fields = definition.fields;
  if (fields === undefined && !required) return;
  if (!isPlainObject(fields) || !isPlainObject(fields.add)) {
    throw new ConfigError(keyPath(ctx, 'fields'), 'must be an object with "add" mapping field names to definitions');
  }
  ctx.sanitizeFields(fields.add, keyPath(ctx, 'fields.add'));
}

/** A `def` is checked by running it through the request-time laundering of the type. */
export function checkDefault(definition: Record<string, unknown>, ctx: DefinitionContext, launder: (v: unknown) => unknown): void {
  if (definition.def === undefined || definition.def === null) return;
  try {
    launder(definition.def);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(keyPath(ctx, 'def'), `is not a valid value: ${reason}`);
  }
}
