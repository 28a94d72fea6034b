import type { FieldSchema } from '../api/types';
import { wordDiff, type DiffPart } from './word-diff';

/**
 * One field that differs between two history entries, as two lines: the older text with the
 * words the newer lost (`removed`), and the newer text with the words it gained (`added`).
 */
export interface FieldDifference {
  readonly name: string;
  readonly label: string;
  readonly older: DiffPart[];
  readonly newer: DiffPart[];
}

/** A word diff split into the older and the newer line, each keeping the words both share. */
function twoLines(parts: readonly DiffPart[]): Pick<FieldDifference, 'older' | 'newer'> {
  return { older: parts.filter((part) => part.kind !== 'added'), newer: parts.filter((part) => part.kind !== 'removed') };
}

/** The text of an HTML fragment, block ends as line breaks (the browser parses it; nothing runs). */
function htmlText(html: string): string {
  const parsed = new DOMParser().parseFromString(html.replace(/<\/(p|h[1-6]|li|blockquote|pre)>/gi, '$&\n'), 'text/html');
  return (parsed.body.textContent ?? '').replace(/\n+$/, '');
}

/** An area's text: each rich-text widget's text content, other widgets as their fields' JSON. */
function areaText(value: unknown): string {
  const items = (value as { items?: unknown[] } | null | undefined)?.items ?? [];
  return items
    .map((item) => {
      const widget = item as Record<string, unknown>;
      if (typeof widget.content === 'string') return htmlText(widget.content);
      const { _id: _ignored, metaType: _meta, ...fields } = widget;
      return JSON.stringify(fields);
    })
    .join('\n');
}

/** A value of a field with choices (select, radio, checkboxes) by its choice's label, as the form shows it. */
function choiceText(choices: NonNullable<FieldSchema['choices']>, value: unknown): string {
  const labelOf = (one: unknown) => choices.find((choice) => choice.value === one)?.label ?? String(one);
  return Array.isArray(value) ? value.map(labelOf).join(', ') : labelOf(value);
}

/** What a field's value reads as, to compare by words. */
export function fieldText(field: Pick<FieldSchema, 'type' | 'choices'>, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.type === 'area') return areaText(value);
  if (field.choices?.length && field.type !== 'relationship') return choiceText(field.choices, value);
  if (typeof value === 'string') return field.type === 'rich-text' || /<\/?[a-z][^>]*>/i.test(value) ? htmlText(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // Relationships and nested values: their titles when they have some, else their JSON.
  if (Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && 'title' in item)) {
    return value.map((item) => String((item as { title: unknown }).title)).join(', ');
  }
  return JSON.stringify(value, null, 1);
}

/** The fields whose text differs between the older and the newer version, in the type's order. */
export function fieldDifferences(fields: readonly FieldSchema[], older: Record<string, unknown>, newer: Record<string, unknown>): FieldDifference[] {
  const differences: FieldDifference[] = [];
  for (const field of fields) {
    const before = fieldText(field, older[field.name]);
    const after = fieldText(field, newer[field.name]);
    if (before !== after) differences.push({ name: field.name, label: field.label || field.name, ...twoLines(wordDiff(before, after)) });
  }
  return differences;
}
