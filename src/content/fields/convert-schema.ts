import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { FieldFailure } from './field-type.js';
import { ValidationError } from '../../errors/app-error.js';

/** What the walker needs of the field-type registry (`FieldTypeRegistry` satisfies it). */
export interface FieldTypeLookup {
  get(name: string): FieldType | undefined;
}

export interface ConvertSchemaArgs {
  readonly fields: readonly SanitizedField[];
  readonly input: Record<string, unknown>;
  readonly existing?: Record<string, unknown>;
  readonly ctx: ConvertContext;
  readonly registry: FieldTypeLookup;
  /** Patch mode: convert only these fields, and only when the input names them. */
  readonly only?: ReadonlySet<string>;
  /** Prepended as is to each field name in error paths. */
  readonly pathPrefix?: string;
}

export interface ConvertSchemaResult {
  values: Record<string, unknown>;
  errors: FieldError[];
}

type Step = { kind: 'skip' } | { kind: 'value'; value: unknown } | { kind: 'keep' };

/** Launders `input` through a schema, collecting one error per failing field. */
export async function convertSchema(args: ConvertSchemaArgs): Promise<ConvertSchemaResult> {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const field of args.fields) {
    const type = fieldTypeOf(args.registry, field);
    if (args.only && !addressedBy(args.only, field, type)) continue;
    try {
      const step = await convertField(args, field, type);
      if (step.kind === 'value') writeValue(type, values, field, step.value);
    } catch (error) {
      if (!(error instanceof FieldFailure)) throw error;
      errors.push(toFieldError(error, (args.pathPrefix ?? '') + field.name));
    }
  }
  return { values, errors };
}

async function convertField(args: ConvertSchemaArgs, field: SanitizedField, type: FieldType): Promise<Step> {
  const stored = args.existing ? readValue(type, args.existing, field) : undefined;
  const input = findInput(args.input, field, type);
  if (input === undefined) {
    if (args.only) return { kind: 'skip' };
    if (args.existing && type.keepsExistingWhenAbsent) return keep(field, type, stored);
    const value = type.defaultValue(field, args.ctx.newId);
    assertPresent(field, type, value);
    return { kind: 'value', value };
  }
  const value = await type.convert(input, field, args.ctx, stored, args.existing);
  if (value === undefined) return keep(field, type, stored);
  assertPresent(field, type, value);
  return { kind: 'value', value };
}

function keep(field: SanitizedField, type: FieldType, stored: unknown): Step {
  assertPresent(field, type, stored);
  return { kind: 'keep' };
}

function assertPresent(field: SanitizedField, type: FieldType, value: unknown): void {
  if (field.required && type.isEmpty(value)) throw new FieldFailure('required', 'required');
}

function fieldTypeOf(registry: FieldTypeLookup, field: SanitizedField): FieldType {
  const type = registry.get(field.type);
  // The config loader refuses unknown types, so this is a programming error, not a client one.
  if (!type) throw new Error(`No field type "${field.type}" (field "${field.name}")`);
  return type;
}

function inputKeysOf(field: SanitizedField, type: FieldType): string[] {
  return [field.name, ...(type.inputKeys?.(field) ?? [])];
}

function addressedBy(only: ReadonlySet<string>, field: SanitizedField, type: FieldType): boolean {
  return inputKeysOf(field, type).some((key) => only.has(key));
}

function findInput(input: Record<string, unknown>, field: SanitizedField, type: FieldType): unknown {
  for (const key of inputKeysOf(field, type)) {
    if (Object.hasOwn(input, key) && input[key] !== undefined) return input[key];
  }
  return undefined;
}

function readValue(type: FieldType, doc: Record<string, unknown>, field: SanitizedField): unknown {
  return type.read ? type.read(doc, field) : doc[field.name];
}

function writeValue(type: FieldType, doc: Record<string, unknown>, field: SanitizedField, value: unknown): void {
  if (type.write) type.write(doc, field, value);
  else doc[field.name] = value;
}

function toFieldError(failure: FieldFailure, path: string): FieldError {
  const data = failure.errors ? { ...failure.data, errors: [...failure.errors] } : { ...failure.data };
  return { name: failure.failure, path, message: failure.message, data };
}

export function throwIfErrors(errors: FieldError[]): void {
  if (errors.length > 0) throw new ValidationError(errors);
}

/** The stored values of a new document (or nested object) that names none of its fields. */
export function defaultsFor(
  fields: readonly SanitizedField[],
  registry: FieldTypeLookup,
  newId: () => string,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const type = fieldTypeOf(registry, field);
    writeValue(type, values, field, type.defaultValue(field, newId));
  }
  return values;
}

/**
 * What the original's `newInstance` answers for `_newInstance` (facts 4.1): the defaults, with
 * each relationship `null` under its name (nothing is related yet; its ids are stored on the
 * first save) and each object the same of its own fields.
 */
export function newInstanceValues(
  fields: readonly SanitizedField[],
  registry: FieldTypeLookup,
  newId: () => string,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const nested = (inner: readonly SanitizedField[]) => newInstanceValues(inner, registry, newId);
  for (const field of fields) {
    const type = fieldTypeOf(registry, field);
    if (type.newInstanceValue) Object.assign(values, type.newInstanceValue(field, nested));
    else writeValue(type, values, field, type.defaultValue(field, newId));
  }
  return values;
}
