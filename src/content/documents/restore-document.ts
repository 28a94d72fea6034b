import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { WidgetTypes } from '../fields/field-type.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';
import { FieldFailure } from '../fields/field-type.js';
import { isPlainObject } from '../fields/nested.js';
import { walkFields } from '../fields/walk-fields.js';
import { resanitizeArea } from '../fields/area.js';
import { ValidationError } from '../../errors/app-error.js';

export interface RestoreDeps {
  readonly registry: FieldTypeLookup;
  readonly widgetTypes: WidgetTypes;
}

/**
 * Launders again, in place, a stored version that comes from outside the API (`cms import`), as
 * a write would have: each field with a `restore` (URLs, dates, emails...) at any depth, and the
 * rich text of every area anywhere in the document, by its area field's rules or, for an area
 * no field describes, the default ones (rendering shows every area it finds). The identity on
 * what a write stored, so an exported store imports byte for byte. Throws ValidationError.
 */
export function restoreDocument(type: SanitizedPieceType, doc: StoredDocument, deps: RestoreDeps): void {
  const areaFields = new Map<Record<string, unknown>, SanitizedField>();
  walkFields({ fields: type.fields, values: doc }, deps, (field, container) => {
    const value = container[field.name];
    // A field whose value holds widgets is an area: its own rich-text rules resanitize it.
    if (deps.registry.get(field.type)?.widgetTypesIn && isPlainObject(value)) areaFields.set(value, field);
    const restore = deps.registry.get(field.type)?.restore;
    if (restore && value !== undefined) container[field.name] = failing(field, () => restore(value, field));
  });
  for (const area of objectsWhere(doc, (found) => found.metaType === 'area')) {
    const field = areaFields.get(area) ?? null;
    failing(field, () => resanitizeArea(area, field));
  }
}

function failing<T>(field: SanitizedField | null, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof FieldFailure)) throw error;
    throw new ValidationError([{ name: error.failure, path: field?.name ?? '', message: error.message, data: error.data }]);
  }
}

/** Every plain object at any depth of `start` (itself included) that `test` accepts. */
function objectsWhere(start: unknown, test: (found: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  // A queue instead of recursion: depth is whatever the stored data has.
  const pending: unknown[] = [start];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const children = Array.isArray(next) ? next : isPlainObject(next) ? Object.values(next) : [];
    if (isPlainObject(next) && test(next)) found.push(next);
    for (const child of children) pending.push(child);
  }
  return found;
}
