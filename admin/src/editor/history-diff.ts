import type { FieldSchema } from '../api/types';
import { wordDiff, type DiffPart } from './word-diff';

/** One field that differs between two history entries: a word diff of its text. */
export interface FieldDifference {
  readonly name: string;
  readonly label: string;
  readonly parts: DiffPart[];
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

/** What a field's value reads as, to compare by words. */
export function fieldText(field: Pick<FieldSchema, 'type'>, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.type === 'area') return areaText(value);
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
    if (before !== after) differences.push({ name: field.name, label: field.label || field.name, parts: wordDiff(before, after) });
  }
  return differences;
}
