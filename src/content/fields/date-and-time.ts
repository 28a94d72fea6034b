import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';
import { emptyOrText, isCalendarDate } from './date.js';

const dateTimePattern =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i;

function isValidClock(match: RegExpExecArray): boolean {
  const [hours, minutes, seconds] = [match[4], match[5], match[6] ?? '0'].map(Number) as [number, number, number];
  const offsetOk = match[9] === undefined || (Number(match[10]) <= 23 && Number(match[11]) <= 59);
  return hours <= 23 && minutes <= 59 && seconds <= 59 && offsetOk;
}

/** `YYYY-MM-DDTHH:MM:SS.fffZ` or `...+HH:MM`, the one spelling `Date` is specified to parse. */
function canonical(match: RegExpExecArray): string {
  const [, year, month, day, hours, minutes, seconds = '00', fraction = ''] = match;
  const offset = match[9] === undefined ? 'Z' : `${match[9]}${match[10]}:${match[11]}`;
  return `${year}-${month}-${day}T${hours}:${minutes}:${seconds}${fraction.slice(0, 4)}${offset}`;
}

/** ISO 8601 with a time; without an offset the time is taken as UTC, whatever the server zone. */
function launder(input: unknown): string | null {
  const text = emptyOrText(input, 'an ISO 8601 date and time');
  if (text === null) return null;
  const match = dateTimePattern.exec(text);
  const valid = match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) && isValidClock(match);
  if (!valid) throw new FieldFailure('invalid', 'must be an ISO 8601 date and time');
  const date = new Date(canonical(match));
  if (Number.isNaN(date.getTime())) throw new FieldFailure('invalid', 'must be an ISO 8601 date and time');
  return date.toISOString();
}

export const dateAndTimeField = textValueField('dateAndTime', launder, { filter: 'range' }, null, 'date-time');
