import type { FieldSchema } from '../api/types';

/**
 * What every field component receives. A field edits `owner[field.name]` in place (the editor's
 * document is reactive), so typing in one field re-renders that field only, even in a form with a
 * thousand array items. `path` is the field's full error path (see errors.ts), also used to make
 * unique element ids.
 */
export interface FieldProps {
  readonly field: FieldSchema;
  readonly owner: Record<string, unknown>;
  readonly path: string;
  /** Locale of the document being edited (relationship pickers search in it). */
  readonly locale: string;
}

/** An id usable in `for`/`id`/`aria-describedby` for a field path. */
export function inputId(path: string): string {
  return `field-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
