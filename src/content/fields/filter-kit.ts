import type { SanitizedField } from '../types/piece-type.js';
import type { Choice, HeldValue, QueryFilter, SearchText } from './field-type.js';
import type { FilterOperation, IndexValue } from '../../storage/storage-adapter.js';
import { FieldFailure } from './field-type.js';
import { choiceValues, matchChoice, type ChoiceValue } from './choices.js';
import { isPlainObject } from './nested.js';
import { defaultText, type LocalizedText } from '../types/localized-text.js';

/**
 * The building blocks of field-type filters: how a scalar value enters the filter index, and
 * the four filter shapes of the original (substring, choices, exact-or-range, yes/no).
 */

type Counted = readonly HeldValue[];

/** Booleans are indexed as 1 and 0, so every index value is text or a number. */
export function toIndexValue(value: unknown): IndexValue | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

/** The stored value of a field as index values: one per element of a list, none when empty. */
export function scalarIndexValues(doc: Record<string, unknown>, field: SanitizedField): IndexValue[] {
  const stored = doc[field.name];
  const list = Array.isArray(stored) ? stored : [stored];
  return list.map(toIndexValue).filter((value): value is IndexValue => value !== null);
}

/** A string field's text, searched with the given weight. */
export function textSearch(weight: SearchText['weight']) {
  return (value: unknown): SearchText[] => (typeof value === 'string' ? [{ text: value, weight }] : []);
}

function invalid(message: string): never {
  throw new FieldFailure('invalid', message);
}

/** One query-string value; qs gives arrays and objects for bracketed keys, refused here. */
function oneText(raw: unknown): string {
  return typeof raw === 'string' ? raw : invalid('must be a single value');
}

/** One value or a list of them (`?tags[]=a&tags[]=b`). */
function textList(raw: unknown): string[] {
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.every((entry) => typeof entry === 'string')) return raw;
  return invalid('must be a value or a list of values');
}

function plainChoices(values: Counted): Choice[] {
  return values.map(({ value, count }) => ({ value, label: String(value), count }));
}

/**
 * Text fields: a value matches as a case-insensitive substring (the original's regex); a list
 * matches any of its exact values (what `choices` hands back).
 */
export function containsFilter(field: SanitizedField, normalize: (text: string) => string = (text) => text): QueryFilter {
  return {
    name: field.name,
    key: field.name,
    parse(raw): FilterOperation | null {
      if (Array.isArray(raw)) return { op: 'in', values: textList(raw).filter((text) => text !== '') };
      const text = normalize(oneText(raw).trim());
      return text === '' ? null : { op: 'contains', text };
    },
    choices: plainChoices,
  };
}

/** Select and checkboxes: every value must be a choice; a document matches any of them. */
export function choicesFilter(field: SanitizedField): QueryFilter {
  const values = choiceValues(field.options);
  const labels = new Map(
    (field.options.choices as { value: ChoiceValue; label: LocalizedText }[]).map((choice) => [toIndexValue(choice.value), { value: choice.value, label: defaultText(choice.label) }]),
  );
  return {
    name: field.name,
    key: field.name,
    parse(raw): FilterOperation | null {
      const wanted = textList(raw).filter((text) => text !== '');
      if (wanted.length === 0) return null;
      const chosen = wanted.map((text) => matchChoice(text, values) ?? invalid(`${JSON.stringify(text)} is not one of the choices`));
      return { op: 'in', values: chosen.map((choice) => toIndexValue(choice)!) };
    },
    choices: (counted) =>
      counted.flatMap(({ value, count }) => {
        const choice = labels.get(value);
        return choice ? [{ value: choice.value, label: choice.label, count }] : [];
      }),
  };
}

/**
 * Numbers and dates: an exact value (`?n=1.1`, or `?n[0]=1.1`), or a range as `[min, max]`
 * (`?n[]=1&n[]=5`, an empty bound is open) or `{ min, max }` (`?n[min]=1`).
 */
export function rangeFilter(field: SanitizedField, parseValue: (text: string) => IndexValue): QueryFilter {
  const bound = (raw: unknown): IndexValue | undefined => {
    const text = oneText(raw ?? '').trim();
    return text === '' ? undefined : parseValue(text);
  };
  const range = (min: unknown, max: unknown): FilterOperation | null => {
    const [low, high] = [bound(min), bound(max)];
    return low === undefined && high === undefined ? null : { op: 'range', min: low, max: high };
  };
  const exact = (raw: unknown): FilterOperation | null => {
    const value = bound(raw);
    return value === undefined ? null : { op: 'in', values: [value] };
  };
  return {
    name: field.name,
    key: field.name,
    parse(raw): FilterOperation | null {
      // `?n[0]=1.1` is one value, as the original reads a one-element array: an exact match.
      if (Array.isArray(raw) && raw.length === 1) return exact(raw[0]);
      if (Array.isArray(raw)) return raw.length === 2 ? range(raw[0], raw[1]) : invalid('a range is [min, max]');
      if (isPlainObject(raw)) {
        const extra = Object.keys(raw).filter((key) => key !== 'min' && key !== 'max');
        return extra.length === 0 ? range(raw.min, raw.max) : invalid('a range is { min, max }');
      }
      return exact(raw);
    },
    choices: plainChoices,
  };
}

const booleanSpellings = new Map<string, 1 | 0 | null>([
  ['true', 1],
  ['1', 1],
  ['yes', 1],
  ['false', 0],
  ['0', 0],
  ['no', 0],
  ['any', null],
  ['null', null],
  ['', null],
]);

/** Yes/no, or `any` for no filter (the original's `booleanOrNull`). */
export function booleanFilter(field: SanitizedField): QueryFilter {
  return {
    name: field.name,
    key: field.name,
    parse(raw): FilterOperation | null {
      const value = booleanSpellings.get(oneText(raw).trim().toLowerCase());
      if (value === undefined) return invalid('must be true, false or any');
      return value === null ? null : { op: 'in', values: [value] };
    },
    choices: (counted) =>
      counted
        .filter(({ value }) => value === 1 || value === 0)
        .map(({ value, count }) => ({ value: value === 1, label: value === 1 ? 'Yes' : 'No', count })),
  };
}
