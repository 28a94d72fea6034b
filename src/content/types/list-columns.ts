import type { ListColumn, SanitizedField } from './piece-type.js';
import type { LocalizedText } from './localized-text.js';
import { ConfigError } from '../../errors/app-error.js';
import { joinPath } from '../../config/schema-check.js';

/*
 * `options.columns` of a piece type: the columns of the admin's list, in order. Each names a
 * top-level field whose value fits a cell, or a timestamp the service writes. The title always
 * comes first (it links to the editor), named or not. Checked once, at start.
 */

/** `columns` as the configuration file holds it (its shape checked with the module, module-schema.ts). */
export type ConfiguredColumns = readonly (string | { readonly name: string; readonly label?: LocalizedText })[];

/**
 * Field types whose value a cell shows as short text: one scalar or a list of choices.
 * Relationships are left out: their titles would cost the list a read of the related documents.
 */
export const cellFieldTypes: ReadonlySet<string> = new Set([
  'string', 'slug', 'email', 'url', 'color', 'integer', 'float', 'select', 'checkboxes', 'boolean', 'date', 'time', 'dateAndTime',
]);

/** Properties the service writes on every document, with the list's label for each. */
const timestampLabels: Readonly<Record<string, string>> = { updatedAt: 'Last change', createdAt: 'Created' };

const titleColumn: ListColumn = { name: 'title', label: 'Title' };

/** The list's columns when the type names none: the title and the last change. */
export const defaultColumns: readonly ListColumn[] = [titleColumn, { name: 'updatedAt', label: timestampLabels.updatedAt! }];

/** `options.columns` as list columns, checked against the type's fields; the defaults when none are configured. */
export function listColumnsOf(configured: ConfiguredColumns | undefined, fieldsByName: ReadonlyMap<string, SanitizedField>, path: string): ListColumn[] {
  if (configured === undefined) return [...defaultColumns];
  const columns: ListColumn[] = [];
  configured.forEach((entry, index) => {
    const { name, label } = typeof entry === 'string' ? { name: entry, label: undefined } : entry;
    const itemPath = joinPath(path, String(index));
    if (columns.some((column) => column.name === name)) throw new ConfigError(itemPath, `"${name}" is listed twice`);
    const known = knownLabel(name, fieldsByName, itemPath);
    columns.push({ name, label: label ?? known });
  });
  return columns[0]?.name === 'title' ? columns : [titleColumn, ...columns.filter((column) => column.name !== 'title')];
}

/** The label of a property a column may show; a property it may not stops the start. */
function knownLabel(name: string, fieldsByName: ReadonlyMap<string, SanitizedField>, path: string): LocalizedText {
  if (Object.hasOwn(timestampLabels, name)) return timestampLabels[name]!;
  const field = fieldsByName.get(name);
  if (!field) throw new ConfigError(path, `"${name}" is no field of this type (a column names a top-level field, "updatedAt" or "createdAt")`);
  if (!cellFieldTypes.has(field.type)) {
    throw new ConfigError(path, `a ${field.type} field cannot be shown in a list cell; columns take ${[...cellFieldTypes].join(', ')} fields`);
  }
  return field.labelText ?? field.label;
}
