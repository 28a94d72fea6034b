import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import { FieldFailure } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { checkDefault, checkMinMax, checkOptionalBoolean, keyPath } from './definition-checks.js';
import { containsFilter, scalarIndexValues, textSearch } from './filter-kit.js';

/** Numbers and booleans become their text, losslessly; objects and arrays are refused. */
export function toText(input: unknown): string {
  if (input === null) return '';
  if (typeof input === 'string') return input;
  if (typeof input === 'number' || typeof input === 'boolean') return String(input);
  throw new FieldFailure('invalid', 'must be a string');
}

export function isEmptyText(value: unknown): boolean {
  return value === '' || value === null || value === undefined;
}

function launder(input: unknown, options: Readonly<Record<string, unknown>>): string {
  const value = toText(input).trim();
  // An empty value is left to `required`; min and pattern judge what was actually written.
  if (value === '') return value;
  if (typeof options.min === 'number' && value.length < options.min) {
    throw new FieldFailure('min', `must be at least ${options.min} characters`, { data: { min: options.min } });
  }
  if (typeof options.max === 'number' && value.length > options.max) {
    throw new FieldFailure('max', `must be at most ${options.max} characters`, { data: { max: options.max } });
  }
  if (typeof options.pattern === 'string' && !new RegExp(options.pattern).test(value)) {
    throw new FieldFailure('invalid', 'does not match the required pattern');
  }
  return value;
}

function checkPattern(definition: Record<string, unknown>, path: string): void {
  const pattern = definition.pattern;
  if (pattern === undefined) return;
  if (typeof pattern !== 'string') throw new ConfigError(path, 'must be a regular expression as a string');
  try {
    new RegExp(pattern);
  } catch {
    throw new ConfigError(path, 'is not a valid regular expression');
  }
}

export const stringField: FieldType = {
  name: 'string',
  definitionKeys: ['textarea', 'min', 'max', 'pattern'],
  validateDefinition(definition, ctx) {
    checkOptionalBoolean(definition, 'textarea', ctx);
    checkMinMax(definition, ctx, 'count');
    checkPattern(definition, keyPath(ctx, 'pattern'));
    checkDefault(definition, ctx, (def) => {
      if (typeof def !== 'string') throw new Error('must be a string');
      launder(def, definition);
    });
  },
  defaultValue: (field: SanitizedField) => field.def ?? '',
  isEmpty: isEmptyText,
  convert: (input, field) => launder(input, field.options),
  indexValues: scalarIndexValues,
  filters: (field) => [containsFilter(field)],
  searchTexts: textSearch('high'),
  valueSchemas(field, ctx) {
    if (ctx.shape !== 'write') return ownProperty(field, { type: 'string' });
    // Numbers and booleans become text; '' is left to `required`, so only `max` bounds every value.
    const { max } = field.options;
    return ownProperty(field, { type: ['string', 'number', 'boolean', 'null'], ...(typeof max === 'number' && { maxLength: max }) });
  },
};
