import { ApiError } from '../api/client';
import { formatDateTime, t } from '../i18n';
import type { FieldSchema } from '../api/types';

/**
 * A save refused with 412: the document changed on the server since the editor read it. The
 * comparison is three-way, field by field, between what the editor read (`base`), what the form
 * holds (`mine`) and what the server holds now (`theirs`): a field only one side changed takes
 * that side's value; a field the server changed is shown beside the form's value to choose.
 */
export interface FieldComparison {
  readonly name: string;
  readonly label: string;
  readonly theirs: unknown;
  readonly mine: unknown;
  /** The form changed it too (else the server's value is the natural choice). */
  readonly changedByMe: boolean;
}

export type Choice = 'mine' | 'theirs';

/** Who changed the document and when, as the 412 names them. */
export interface ChangedBy {
  readonly message: string;
  readonly updatedAt: string | undefined;
}

/**
 * The 412's account of the change, or undefined when `error` is not a 412: "Ada Lovelace changed
 * this document at 14:02:11" from `data.updatedBy` and `data.updatedAt`, else the server's message.
 */
export function changedSinceRead(error: unknown): ChangedBy | undefined {
  if (!(error instanceof ApiError) || error.status !== 412) return undefined;
  const data = error.body.data ?? {};
  const updatedAt = typeof data.updatedAt === 'string' ? data.updatedAt : undefined;
  const who = userName(data.updatedBy);
  const when = updatedAt ? formatDateTime(updatedAt) : undefined;
  const message = who && when ? t('conflict.changedAt', { who, when }) : error.body.message;
  return { message, updatedAt };
}

function userName(user: unknown): string | undefined {
  if (typeof user !== 'object' || user === null) return undefined;
  const { title, firstName, lastName, username } = user as Record<string, unknown>;
  const full = [firstName, lastName].filter((part) => typeof part === 'string' && part).join(' ');
  return [title, full, username].find((name): name is string => typeof name === 'string' && name !== '');
}

/**
 * A value as far as its content goes. A relationship (a `_name` key, at any depth: areas' widgets
 * hold them too) counts by the ids and own fields of what it names: the expanded documents also
 * carry the related documents' bookkeeping (`cacheInvalidatedAt`, `updatedAt`, …), which moves
 * when anything else relates to them and is no change of this document.
 */
function contentOf(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    if (key.startsWith('_')) return value.map((item) => (isRelated(item) ? { _id: item._id, _fields: item._fields ?? null } : contentOf(item)));
    return value.map((item) => contentOf(item));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, contentOf(inner, name)]));
  }
  return value;
}

const isRelated = (item: unknown): item is { _id: string; _fields?: unknown } =>
  typeof item === 'object' && item !== null && typeof (item as { _id?: unknown })._id === 'string';

/** Whether field `name` holds the same content in both (`name` tells a relationship by its `_`). */
const same = (a: unknown, b: unknown, name: string) =>
  JSON.stringify(contentOf(a ?? null, name)) === JSON.stringify(contentOf(b ?? null, name));

/** The fields the server changed since `base`, each with the form's value beside the server's. */
export function compareVersions(
  fields: readonly FieldSchema[],
  base: Readonly<Record<string, unknown>>,
  mine: Readonly<Record<string, unknown>>,
  theirs: Readonly<Record<string, unknown>>,
): FieldComparison[] {
  return fields
    .filter((field) => !same(base[field.name], theirs[field.name], field.name) && !same(mine[field.name], theirs[field.name], field.name))
    .map((field) => ({
      name: field.name,
      label: field.label || field.name,
      theirs: theirs[field.name],
      mine: mine[field.name],
      changedByMe: !same(base[field.name], mine[field.name], field.name),
    }));
}

/** The choice offered first: the server's value unless the form changed the field too. */
export function defaultChoice(comparison: FieldComparison): Choice {
  return comparison.changedByMe ? 'mine' : 'theirs';
}

/**
 * The form's values after choosing: the server's value for every field it changed that the
 * form did not (so that it is not reverted), and for each compared field the one chosen.
 */
export function mergeChoices(
  fields: readonly FieldSchema[],
  base: Readonly<Record<string, unknown>>,
  mine: Readonly<Record<string, unknown>>,
  theirs: Readonly<Record<string, unknown>>,
  choices: ReadonlyMap<string, Choice>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const field of fields) {
    const changedByMe = !same(base[field.name], mine[field.name], field.name);
    const choice = choices.get(field.name) ?? (changedByMe ? 'mine' : 'theirs');
    const value = choice === 'mine' ? mine[field.name] : theirs[field.name];
    if (value !== undefined) merged[field.name] = value;
  }
  return merged;
}

const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim();

function itemText(item: unknown): string {
  if (item && typeof item === 'object') {
    const holder = item as Record<string, unknown>;
    if (typeof holder.title === 'string') return holder.title;
    if (typeof holder.content === 'string') return textOf(holder.content);
    if (typeof holder.type === 'string') return `[${holder.type}]`;
  }
  return describeValue(item);
}

/** A short reading of a field's value for the comparison: text, titles of related documents, an area's words. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return t('conflict.empty');
  if (typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.length ? value.map(itemText).join(', ') : t('conflict.empty');
  const holder = value as Record<string, unknown>;
  if (Array.isArray(holder.items)) return describeValue(holder.items);
  return JSON.stringify(value);
}

/** The form's own changes since `base`, one "Label: value" line each, for the user to copy elsewhere. */
export function changesAsText(fields: readonly FieldSchema[], base: Readonly<Record<string, unknown>>, mine: Readonly<Record<string, unknown>>): string {
  return fields
    .filter((field) => !same(base[field.name], mine[field.name], field.name))
    .map((field) => `${field.label || field.name}: ${describeValue(mine[field.name])}`)
    .join('\n');
}
