import type { SanitizedField } from '../types/piece-type.js';
import type { SchemaValues, WidgetTypes } from './field-type.js';
import type { FieldTypeLookup } from './convert-schema.js';

/**
 * Visits every field of a stored object and of every schema-described object nested in it
 * (array items, object values, widgets in areas), with the object that holds the field's value.
 */
export function walkFields(
  start: SchemaValues,
  deps: { readonly registry: FieldTypeLookup; readonly widgetTypes: WidgetTypes },
  visit: (field: SanitizedField, container: Record<string, unknown>) => void,
): void {
  // A queue instead of recursion: depth is whatever the stored data has.
  const pending: SchemaValues[] = [start];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const field of next.fields) {
      visit(field, next.values);
      const type = deps.registry.get(field.type);
      const value = type?.read ? type.read(next.values, field) : next.values[field.name];
      if (type?.nested && value !== undefined && value !== null) {
        // A loop, not push(...): an array of client-chosen length would overflow the call stack.
        for (const nested of type.nested(value, field, deps.widgetTypes)) pending.push(nested);
      }
    }
  }
}

/**
 * Visits every widget in the areas of a stored object, at any depth (widgets in areas nested in
 * widgets, arrays and objects too), with its schema and values.
 */
export function walkWidgets(
  start: SchemaValues,
  deps: { readonly registry: FieldTypeLookup; readonly widgetTypes: WidgetTypes },
  visit: (widget: SchemaValues) => void,
): void {
  const area = deps.registry.get('area');
  walkFields(start, deps, (field, container) => {
    const value = container[field.name];
    if (field.type !== 'area' || !area?.nested || value === undefined || value === null) return;
    for (const widget of area.nested(value, field, deps.widgetTypes)) visit(widget);
  });
}

/** The schemas of every widget type reachable through the areas of `schemas`, at any depth. */
export function widgetSchemasBelow(schemas: readonly (readonly SanitizedField[])[], widgetTypes: WidgetTypes): (readonly SanitizedField[])[] {
  const found: (readonly SanitizedField[])[] = [];
  walkFieldDefinitions(schemas, widgetTypes, (field) => {
    if (field.type === 'area') found.push(...schemasBelow(field, widgetTypes));
  });
  return found;
}

/** The schemas one level below a field: its own nested fields, or every widget type's for an area. */
export function schemasBelow(field: SanitizedField, widgetTypes: WidgetTypes): (readonly SanitizedField[])[] {
  return field.type === 'area' ? [...widgetTypes.values()].map((widget) => widget.fields) : [field.fields];
}

/**
 * Visits every field definition of `schemas` and of every schema below them at any depth
 * (arrays, objects, relationship fields, every widget type below an area). Each schema is
 * visited once, so widgets that hold areas do not loop.
 */
export function walkFieldDefinitions(
  schemas: readonly (readonly SanitizedField[])[],
  widgetTypes: WidgetTypes,
  visit: (field: SanitizedField) => void,
): void {
  const seen = new Set<readonly SanitizedField[]>();
  const pending = [...schemas];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    for (const field of next) {
      visit(field);
      for (const below of schemasBelow(field, widgetTypes)) pending.push(below);
    }
  }
}

/** Whether any field definition of `schemas`, at any depth (walkFieldDefinitions), is of `fieldType`. */
export function schemasHold(schemas: readonly (readonly SanitizedField[])[], widgetTypes: WidgetTypes, fieldType: string): boolean {
  let holds = false;
  walkFieldDefinitions(schemas, widgetTypes, (field) => {
    if (field.type === fieldType) holds = true;
  });
  return holds;
}
