import { nullable, ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { checkDefault, checkMinMax } from './definition-checks.js';
import { rangeFilter, scalarIndexValues } from './filter-kit.js';

interface NumberKind {
  readonly name: 'integer' | 'float';
  /** Full-string spelling accepted from text input. */
  readonly spelling: RegExp;
  readonly accepts: (n: number) => boolean;
  readonly noun: string;
}

function parse(input: unknown, kind: NumberKind): number | null {
  if (input === null) return null;
  if (typeof input === 'number') {
    if (kind.accepts(input)) return input;
    throw new FieldFailure('invalid', `must be ${kind.noun}`);
  }
  if (typeof input !== 'string') throw new FieldFailure('invalid', `must be ${kind.noun}`);
  const text = input.trim();
  if (text === '') return null;
  const value = Number(text);
  if (!kind.spelling.test(text) || !kind.accepts(value)) throw new FieldFailure('invalid', `must be ${kind.noun}`);
  return value;
}

/** Out of range is refused, never clamped. */
function launder(input: unknown, options: Readonly<Record<string, unknown>>, kind: NumberKind): number | null {
  const value = parse(input, kind);
  if (value === null) return null;
  if (typeof options.min === 'number' && value < options.min) {
    throw new FieldFailure('min', `must be at least ${options.min}`, { data: { min: options.min } });
  }
  if (typeof options.max === 'number' && value > options.max) {
    throw new FieldFailure('max', `must be at most ${options.max}`, { data: { max: options.max } });
  }
  return value;
}

export function numberFieldType(kind: NumberKind): FieldType {
  return {
    name: kind.name,
    definitionKeys: ['min', 'max'],
    validateDefinition(definition, ctx) {
      checkMinMax(definition, ctx, 'number');
      checkDefault(definition, ctx, (def) => {
        if (typeof def !== 'number') throw new Error(`must be ${kind.noun}`);
        launder(def, definition, kind);
      });
    },
    defaultValue: (field) => field.def ?? null,
    isEmpty: (value) => value === null || value === undefined,
    convert: (input, field) => launder(input, field.options, kind),
    indexValues: scalarIndexValues,
    // Bounds need not lie within the field's min and max: only their spelling is checked.
    filters: (field) => [rangeFilter(field, (text) => parse(text, kind)!)],
    valueSchemas(field, ctx) {
      const { min, max } = field.options;
      const number = {
        type: kind.name === 'integer' ? 'integer' : 'number',
        ...(typeof min === 'number' && { minimum: min }),
        ...(typeof max === 'number' && { maximum: max }),
      };
      // Written as a number or its text ("12"); '' and null clear it.
      return ownProperty(field, ctx.shape === 'write' ? { anyOf: [number, { type: ['string', 'null'] }] } : nullable(number));
    },
  };
}

export const integerKind: NumberKind = {
  name: 'integer',
  spelling: /^[-+]?\d+$/,
  accepts: (n) => Number.isSafeInteger(n),
  noun: 'an integer',
};

export const floatKind: NumberKind = {
  name: 'float',
  spelling: /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/,
  accepts: (n) => Number.isFinite(n),
  noun: 'a number',
};
