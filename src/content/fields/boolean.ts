import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { checkDefault } from './definition-checks.js';
import { booleanFilter, scalarIndexValues } from './filter-kit.js';

const spellings = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  ['true', true],
  ['false', false],
  [1, true],
  [0, false],
  ['1', true],
  ['0', false],
]);

/** `''` is what an emptied form control sends: no answer, like null. */
function launder(input: unknown): boolean | null {
  if (input === null || input === '') return null;
  const value = spellings.get(input);
  if (value === undefined) throw new FieldFailure('invalid', 'must be true or false');
  return value;
}

export const booleanField: FieldType = {
  name: 'boolean',
  definitionKeys: [],
  validateDefinition(definition, ctx) {
    checkDefault(definition, ctx, (def) => {
      if (typeof def !== 'boolean') throw new Error('must be true or false');
    });
  },
  defaultValue: (field) => field.def ?? null,
  isEmpty: (value) => value === null || value === undefined,
  convert: (input) => launder(input),
  indexValues: scalarIndexValues,
  filters: (field) => [booleanFilter(field)],
  valueSchemas: (field, ctx) =>
    ownProperty(field, ctx.shape === 'write' ? { enum: [...spellings.keys(), '', null] } : { type: ['boolean', 'null'] }),
};
