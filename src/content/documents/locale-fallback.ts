import type { AppConfig } from '../app-config.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentQuery, DocumentStore, StoredDocument } from '../../storage/storage-adapter.js';
import type { DocumentOutput } from './collaborators.js';
import { composeId, parseDocumentId } from '../../core/ids.js';

/*
 * Locale fallback (issue 25): a locale may name a `fallback` locale in the configuration, and
 * that one its own (`es-mx` → `es` → `en`, resolved at start: `LocaleConfig.fallbacks`). A
 * published read of a document that has no version in the asked locale answers the first
 * version found along the chain, marked `_fallbackLocale`; a type's `fallbackFields` fills its
 * empty fields of a published version from the chain, listed in `_fallbackFields`. Reads only:
 * every write names a real version by its own `_id`, which a fallback answer shows.
 */

/** The asked locale, then those it falls back to, in order. */
export function localeChainOf(config: AppConfig, locale: string): string[] {
  return [locale, ...(config.locales.get(locale)?.fallbacks ?? [])];
}

/** The locale of a stored version (null for a type without locales). */
export function localeOf(doc: StoredDocument): string | null {
  return parseDocumentId(doc._id).locale ?? null;
}

/** The version ids of a document along a chain, in order. */
export function chainIds(docId: string, chain: readonly string[], mode: 'draft' | 'published'): string[] {
  return chain.map((locale) => composeId(docId, locale, mode));
}

/** The first of `found` in the order of `ids`, or undefined. */
export function firstInChain(found: readonly StoredDocument[], ids: readonly string[]): StoredDocument | undefined {
  const byId = new Map(found.map((doc) => [doc._id, doc]));
  return ids.map((id) => byId.get(id)).find((doc) => doc !== undefined);
}

/** Marks a presented version that stands in for the asked locale's. */
export function markFallbackLocale(output: DocumentOutput, doc: StoredDocument, asked: string): void {
  const locale = localeOf(doc);
  if (locale !== null && locale !== asked) output._fallbackLocale = locale;
}

/** Whether a stored value counts as empty for `fallbackFields`: absent, null, '', [] or an area without widgets. */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && (value as { metaType?: unknown }).metaType === 'area') {
    const items = (value as { items?: unknown }).items;
    return !Array.isArray(items) || items.length === 0;
  }
  return false;
}

/**
 * Fills the empty `fallbackFields` of published versions, before they are presented, from their
 * document's versions along the chain after their own locale: one query for all of them,
 * whatever their number. Answers the versions in order (a filled one as a copy: what the store
 * answered is never changed) and, by version `_id`, the fields filled. `access` is the
 * `archived` and `visibility` of the caller's read: a fallback never shows what the caller could
 * not read.
 */
export async function fillFallbackFields(
  deps: { config: AppConfig; store: DocumentStore },
  type: SanitizedPieceType,
  docs: readonly StoredDocument[],
  access: Pick<DocumentQuery, 'archived' | 'visibility'>,
): Promise<{ docs: StoredDocument[]; filled: Map<string, string[]> }> {
  const filled = new Map<string, string[]>();
  const fields = type.options.fallbackFields;
  const wanting = docs.filter((doc) => fields.some((name) => isEmptyValue(doc[name])));
  if (fields.length === 0 || wanting.length === 0) return unfilled(docs);
  const docIds = [...new Set(wanting.map((doc) => doc.cmsDocId as string))];
  const others = await deps.store.find({ type: type.name, docIds, mode: 'published', archived: access.archived, visibility: access.visibility, reverseIds: false });
  const versions = new Map(others.map((doc) => [doc._id, doc]));
  const sourcesOf = (doc: StoredDocument) =>
    localeChainOf(deps.config, localeOf(doc)!).slice(1).map((locale) => versions.get(composeId(doc.cmsDocId as string, locale, 'published')));
  const answered = docs.map((doc) => {
    const sources = sourcesOf(doc);
    const values = fields.filter((name) => isEmptyValue(doc[name])).map((name) => [name, firstValue(name, sources)] as const);
    const found = values.filter(([, value]) => value !== undefined);
    if (found.length === 0) return doc;
    filled.set(doc._id, found.map(([name]) => name));
    return { ...doc, ...Object.fromEntries(found.map(([name, value]) => [name, structuredClone(value)])) };
  });
  return { docs: answered, filled };
}

/** What `fillFallbackFields` answers for a read that fills nothing (drafts). */
export function unfilled(docs: readonly StoredDocument[]): { docs: StoredDocument[]; filled: Map<string, string[]> } {
  return { docs: [...docs], filled: new Map() };
}

/** The first non-empty value of `name` among `sources`, or undefined. */
function firstValue(name: string, sources: readonly (StoredDocument | undefined)[]): unknown {
  return sources.find((version) => version !== undefined && !isEmptyValue(version[name]))?.[name];
}

/** Lists the filled fields a presented version shows (never one its projection hides). */
export function markFallbackFields(output: DocumentOutput, names: readonly string[] | undefined): void {
  const shown = names?.filter((name) => Object.hasOwn(output, name));
  if (shown && shown.length > 0) output._fallbackFields = shown;
}
