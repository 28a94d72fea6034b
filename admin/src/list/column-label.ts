import type { ListColumn } from '../api/types';
import { t } from '../i18n';

/** The properties every type has are named in the interface language; fields as configured (in it, when given per language). */
const builtInColumns: Readonly<Record<string, string>> = { title: 'listTable.title', updatedAt: 'listTable.lastChange', createdAt: 'listTable.created' };

export function columnLabel(column: ListColumn): string {
  const key = builtInColumns[column.name];
  return key ? t(key) : column.label;
}
