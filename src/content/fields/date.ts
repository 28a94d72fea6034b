import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `Date` rolls Feb 30 over into March, so the calendar is checked by hand. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}

/** Whether a date or a time (`YYYY-MM-DD…`, its shape already checked) names a day that exists. */
export function namesCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return isCalendarDate(year, month, day);
}

/** Null for empty input; throws for anything that is not a string. */
export function emptyOrText(input: unknown, expected: string): string | null {
  if (input === null) return null;
  if (typeof input !== 'string') throw new FieldFailure('invalid', `must be ${expected}`);
  const text = input.trim();
  return text === '' ? null : text;
}

function launder(input: unknown): string | null {
  const text = emptyOrText(input, 'a date (YYYY-MM-DD)');
  if (text === null) return null;
  const match = datePattern.exec(text);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new FieldFailure('invalid', 'must be a date (YYYY-MM-DD)');
  }
  return text;
}

export const dateField = textValueField('date', launder, { filter: 'range' }, null, 'date');
