import type { FieldSchema } from '../api/types';
import type { FieldProps } from './field-props';

/**
 * The value a field shows: its own, or its `def` while it has none yet (undefined). A value the
 * user emptied (null, "") stays empty rather than springing back to the default.
 */
export function shownValue(props: Pick<FieldProps, 'field' | 'owner'>): unknown {
  const value = props.owner[props.field.name];
  return value === undefined ? props.field.def : value;
}

/** A short id for new array items; the server keeps client ids of 1-64 letters, digits, - and _. */
export function newItemId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => (byte % 36).toString(36)).join('');
}

/** A new array item or object: an `_id` and each field's default, deep-copied so items share nothing. */
export function newItem(fields: readonly FieldSchema[]): Record<string, unknown> {
  const item: Record<string, unknown> = { _id: newItemId() };
  for (const field of fields) {
    if (field.def !== undefined) item[field.name] = structuredClone(field.def);
    else if (field.type === 'object') item[field.name] = newItem(field.fields ?? []);
    else if (field.type === 'array' || field.type === 'checkboxes') item[field.name] = [];
  }
  return item;
}
