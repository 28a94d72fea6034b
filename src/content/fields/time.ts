import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';
import { emptyOrText } from './date.js';

const timePattern = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** 24-hour `H:MM`, `HH:MM` or `HH:MM:SS`, stored as `HH:MM:SS`. */
function launder(input: unknown): string | null {
  const text = emptyOrText(input, 'a time (HH:MM or HH:MM:SS)');
  if (text === null) return null;
  const match = timePattern.exec(text);
  const [hours, minutes, seconds] = match ? [match[1], match[2], match[3] ?? '0'].map(Number) : [];
  if (hours === undefined || hours > 23 || minutes! > 59 || seconds! > 59) {
    throw new FieldFailure('invalid', 'must be a time (HH:MM or HH:MM:SS)');
  }
  return [hours, minutes!, seconds!].map((n) => String(n).padStart(2, '0')).join(':');
}

export const timeField = textValueField('time', launder, { filter: 'range' });
