import type { SanitizedField } from '../types/piece-type.js';
import type { WidgetTypes } from './field-type.js';
import type { FieldTypeLookup } from './convert-schema.js';
import { walkFields } from './walk-fields.js';
import { newId } from '../../core/ids.js';

export interface KeepStoredValues {
  readonly fields: readonly SanitizedField[];
  /** The stored content being copied in (a history entry's schema values, another locale's): changed in place. */
  readonly values: Record<string, unknown>;
  /** The version as it is stored now, which `values` will be written over. */
  readonly current: Readonly<Record<string, unknown>>;
  readonly canRead: (type: string) => boolean;
  readonly registry: FieldTypeLookup;
  readonly widgetTypes: WidgetTypes;
}

/**
 * Stored content a write copies into a version that exists (a restore from history, a localize
 * with `update`) takes, for each field the caller may not set (FieldType.keepsStoredValue: a
 * relationship to a type it may not read, a password hash), the value the version stores now at
 * the same place: the document itself, or the array item, object or widget with the same `_id`.
 * Where the version has no such place, the field's default: what a PATCH gives a new item.
 */
export function keepStoredValues(args: KeepStoredValues): void {
  const { registry } = args;
  const deps = { registry, widgetTypes: args.widgetTypes };
  const places = new Map<unknown, Readonly<Record<string, unknown>>>();
  walkFields({ fields: args.fields, values: args.current as Record<string, unknown> }, deps, (_field, container) => {
    if (container !== args.current && typeof container._id === 'string') places.set(container._id, container);
  });
  walkFields({ fields: args.fields, values: args.values }, deps, (field, container) => {
    const type = registry.get(field.type);
    if (!type?.keepsStoredValue?.(field, args.canRead)) return;
    const place = container === args.values ? args.current : places.get(container._id);
    if (!place) {
      const value = type.defaultValue(field, newId);
      if (type.write) type.write(container, field, value);
      else container[field.name] = value;
      return;
    }
    for (const key of type.storageKeys?.(field) ?? [field.name]) {
      if (Object.hasOwn(place, key)) container[key] = structuredClone(place[key]);
      else delete container[key];
    }
  });
}
