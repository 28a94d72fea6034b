import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';

// One `@`, no spaces, a dot in the domain: strict enough to catch mistakes, loose enough for real addresses.
const emailPattern = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function launder(input: unknown): string {
  if (input === null) return '';
  if (typeof input !== 'string') throw new FieldFailure('invalid', 'must be an email address');
  const text = input.trim();
  if (text !== '' && !emailPattern.test(text)) throw new FieldFailure('invalid', 'must be an email address');
  return text;
}

export const emailField = textValueField('email', launder, { filter: 'contains', search: 'high' }, '');
