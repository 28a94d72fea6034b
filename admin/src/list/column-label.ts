import type { ListColumn } from '../api/types';
import { t } from '../i18n';

/**
 * The properties every type has are named in the interface language, unless the configuration
 * labels them otherwise; fields as configured (in the interface language, when given per language).
 */
const builtInColumns: Readonly<Record<string, string>> = { title: 'listTable.title', updatedAt: 'listTable.lastChange', createdAt: 'listTable.created' };

export function columnLabel(column: ListColumn): string {
  const key = builtInColumns[column.name];
  // The server names a built-in column nobody labelled with the English catalogue's words
  // (test/unit/admin-catalogue.test.ts holds them together): those the catalogue translates.
  return key && column.label === t(key, {}, { locale: 'en' }) ? t(key) : column.label;
}
