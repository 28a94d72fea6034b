import type { FieldSchema, ListAnswer, PieceTypeSchema } from '../api/types';
import { t } from '../i18n';

/**
 * The list's filters, built from the type's schema: one per top-level field the server can filter
 * on and the list can offer cheaply. `choice` filters get their options from the list answer
 * (`choices=`), so they show only values some document holds.
 */
/**
 * `anyOf`: several choice values ticked, any matching (the API's `tags[]=a&tags[]=b`).
 * `scheduled`: not a field's, the server's `scheduled` list parameter (scheduled publishing).
 */
export type FilterKind = 'choice' | 'anyOf' | 'boolean' | 'dateRange' | 'scheduled';

export interface FilterDef {
  readonly name: string;
  readonly label: string;
  readonly kind: FilterKind;
  readonly field: FieldSchema;
}

/** A filter's value as the URL and the controls hold it: '' (none ticked for `anyOf`) means no filter. */
export interface FilterValue {
  value: string;
  /** The ticked values of an `anyOf` filter. */
  values: readonly string[];
  from: string;
  to: string;
}

export interface FilterOption {
  readonly value: string;
  readonly label: string;
}

const kindByFieldType: Readonly<Record<string, FilterKind>> = {
  select: 'anyOf',
  checkboxes: 'anyOf',
  relationship: 'choice',
  boolean: 'boolean',
  date: 'dateRange',
  dateAndTime: 'dateRange',
};

/** `archived` has its own view (live / archived), so it is never a filter. */
const notFilters = new Set(['archived']);

export function filterDefsFor(type: PieceTypeSchema): FilterDef[] {
  const defs: FilterDef[] = type.fields.flatMap((field) => {
    const kind = kindByFieldType[field.type];
    return kind && !notFilters.has(field.name) ? [{ name: field.name, label: field.label, kind, field }] : [];
  });
  // Drafts with a scheduled publish or unpublish, for those who may read drafts (a field of that name keeps its own filter).
  const schedules = type.localized && !type.autopublish && type.can.viewDrafts && !type.fields.some((field) => field.name === 'scheduled');
  return schedules ? [...defs, scheduledFilter()] : defs;
}

/** The schedule filter: `scheduled=true|pending|failed` (`scheduledOptions`). */
function scheduledFilter(): FilterDef {
  const label = t('schedule.badge');
  return { name: 'scheduled', label, kind: 'scheduled', field: { name: 'scheduled', type: 'scheduled', label, help: '', required: false } };
}

export function scheduledOptions(): readonly FilterOption[] {
  return [
    { value: 'true', label: t('schedule.badge') },
    { value: 'pending', label: t('upload.waiting') },
    { value: 'failed', label: t('upload.failed') },
  ];
}

export function emptyFilterValue(): FilterValue {
  return { value: '', values: [], from: '', to: '' };
}

export function isActive(filter: FilterValue): boolean {
  return filter.value !== '' || filter.values.length > 0 || filter.from !== '' || filter.to !== '';
}

/** A date input's day as the bound a `dateAndTime` field compares with (local day, in UTC). */
function dayBound(day: string, end: boolean): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const local = end ? new Date(year, month - 1, date, 23, 59, 59, 999) : new Date(year, month - 1, date);
  return local.toISOString();
}

/** The API parameters of one filter (`tags[]=tech`, `startDate[min]=…`, `flag=true`), or none. */
export function filterParam(def: FilterDef, filter: FilterValue): string | readonly string[] | Record<string, string> | undefined {
  if (def.kind === 'dateRange') {
    if (!filter.from && !filter.to) return undefined;
    const bound = (day: string, end: boolean) => (def.field.type === 'dateAndTime' ? dayBound(day, end) : day);
    const range: Record<string, string> = {};
    if (filter.from) range.min = bound(filter.from, false);
    if (filter.to) range.max = bound(filter.to, true);
    return range;
  }
  if (def.kind === 'anyOf') return filter.values.length ? filter.values : undefined;
  if (!filter.value) return undefined;
  return def.kind === 'choice' ? [filter.value] : filter.value;
}

/** The filters that take choices from the list answer (`choices=`). */
export const takesChoices = (def: FilterDef) => def.kind === 'choice' || def.kind === 'anyOf';

/**
 * The options of a choice filter: the values the matching documents hold, labelled as the schema
 * labels a choice (in the admin's language), else as the server does (related titles). The chosen
 * values stay listed even when no document holds them, so the control never silently shows "Any"
 * while a filter applies.
 */
export function filterOptions(def: FilterDef, answer: ListAnswer | undefined, chosen: readonly string[]): FilterOption[] {
  const held = (answer?.choices?.[def.name] ?? []).map((choice) => {
    const value = String(choice.value);
    return { value, label: choiceLabel(def.field, value, choice.label) };
  });
  if (def.field.type === 'relationship') held.push({ value: 'none', label: t('filters.none', { field: def.label.toLowerCase() }) });
  const missing = chosen.filter((value) => value && !held.some((option) => option.value === value));
  return [...missing.map((value) => ({ value, label: choiceLabel(def.field, value) })), ...held];
}

/** The configured label of a select or checkboxes value; `otherwise` (the value itself) when it has none. */
export function choiceLabel(field: FieldSchema, value: string, otherwise = value): string {
  return field.choices?.find((choice) => String(choice.value) === value)?.label ?? otherwise;
}
