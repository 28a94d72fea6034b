import type { FieldSchema } from '../api/types';
import { choiceLabel } from './filters';
import { currentLanguage, formatDateTime, t } from '../i18n';

/**
 * A column's value as the cell shows it, by field type (the server allows in columns only the
 * types handled here: `cellFieldTypes` of list-columns.ts): choice labels, Yes/No, dates and
 * numbers in the interface language.
 */

export const formatMoment = (iso: string) => formatDateTime(iso);
const formatNumber = (value: number) => new Intl.NumberFormat(currentLanguage(), { maximumFractionDigits: 20 }).format(value);

/** `2026-03-01` is a calendar day: read in local time, so no time zone moves it to the day before. */
function formatDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  return year && month && date ? new Intl.DateTimeFormat(currentLanguage(), { dateStyle: 'medium' }).format(new Date(year, month - 1, date)) : day;
}

type Formatter = (value: unknown, field: FieldSchema) => string;

const formatters: Readonly<Record<string, Formatter>> = {
  select: (value, field) => choiceLabel(field, String(value)),
  checkboxes: (value, field) => (Array.isArray(value) ? value.map((item) => choiceLabel(field, String(item))).join(', ') : ''),
  boolean: (value) => (value ? t('common.yes') : t('common.no')),
  date: (value) => formatDay(String(value)),
  dateAndTime: (value) => formatMoment(String(value)),
  integer: (value) => (typeof value === 'number' ? formatNumber(value) : ''),
  float: (value) => (typeof value === 'number' ? formatNumber(value) : ''),
};

/** The text of one cell; empty for a value the document does not hold. `field` is absent for the timestamps. */
export function formatCell(value: unknown, field: FieldSchema | undefined): string {
  if (value === undefined || value === null || value === '') return '';
  if (!field) return typeof value === 'string' ? formatMoment(value) : '';
  return (formatters[field.type] ?? ((plain) => String(plain)))(value, field);
}
