import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { checkMinMax, keyPath } from './definition-checks.js';

// Stands in for a hash not made yet: the write that meets it is run again (see WritePasswords).
const notHashedYet = 'not-hashed-yet';

function checkLength(plain: string, options: Readonly<Record<string, unknown>>, minLength: number): void {
  if (plain.length < minLength) {
    throw new FieldFailure('invalid', `must be at least ${minLength} characters`, { data: { min: minLength } });
  }
  if (typeof options.min === 'number' && plain.length < options.min) {
    throw new FieldFailure('min', `must be at least ${options.min} characters`, { data: { min: options.min } });
  }
  if (typeof options.max === 'number' && plain.length > options.max) {
    throw new FieldFailure('max', `must be at most ${options.max} characters`, { data: { max: options.max } });
  }
}

function hasStoredHash(existing: unknown): boolean {
  return typeof existing === 'string' && existing !== '';
}

/** Stored only as a hash; an empty input leaves a stored password alone. */
export const passwordField: FieldType = {
  name: 'password',
  definitionKeys: ['min', 'max'],
  keepsExistingWhenAbsent: true,
  secret: true,
  // Only a password typed in makes a hash: a copied one (an old entry's) never replaces the stored one.
  keepsStoredValue: () => true,
  validateDefinition(definition, ctx) {
    checkMinMax(definition, ctx, 'count');
    // A default would be one password shared by every new document.
    if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'a password field cannot have a default');
  },
  defaultValue: () => null,
  isEmpty: (value) => value === null || value === undefined || value === '',
  async convert(input, field, ctx, existing) {
    if (input === null || input === '') return hasStoredHash(existing) ? undefined : null;
    if (typeof input !== 'string') throw new FieldFailure('invalid', 'must be a string');
    checkLength(input, field.options, ctx.passwords.minLength);
    return ctx.passwords.hashOf(input) ?? notHashedYet;
  },
  // Never answered: a password exists only in what is written.
  valueSchemas: (field, ctx) => (ctx.shape === 'write' ? ownProperty(field, { type: ['string', 'null'], writeOnly: true }) : {}),
};
