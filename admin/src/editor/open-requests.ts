import { getPiece, pieceLocales } from '../api/pieces';
import type { FieldSchema } from '../api/types';
import { pieceType } from '../session';

/**
 * The two requests that open a document: its draft and the versions it has in each locale. The
 * router starts them when it enters the editor, while the editor's code is still loading, so
 * opening an editor costs one round trip instead of code, then data.
 */
export interface OpenRequests {
  readonly draft: ReturnType<typeof getPiece>;
  readonly versions: Promise<{ results: { _id: string; cmsLocale: string }[] }>;
}

const started = new Map<string, OpenRequests>();

function keyOf(typeName: string, docId: string, locale: string): string {
  return `${typeName}\u0000${docId}\u0000${locale}`;
}

function start(typeName: string, docId: string, locale: string): OpenRequests {
  const localized = pieceType(typeName)?.localized ?? false;
  return {
    draft: getPiece(typeName, docId, { locale, mode: 'draft' }, { archived: 'any' }),
    versions: localized ? pieceLocales(typeName, docId) : Promise.resolve({ results: [] }),
  };
}

/** Called by the router on entering the editor; the editor takes the answers with `openDocument`. */
export function prefetchDocument(typeName: string, docId: string, locale: string): void {
  const requests = start(typeName, docId, locale);
  // Whoever takes them handles a refusal; until then it must not count as unhandled.
  requests.draft.catch(() => undefined);
  requests.versions.catch(() => undefined);
  // One navigation at a time: requests the editor never took (it kept what it showed) are dropped.
  started.clear();
  started.set(keyOf(typeName, docId, locale), requests);
}

/**
 * The requests that open this document: those the router started when `onNavigation` (the
 * editor opening for a route), else new ones, since a reload after an action must see its effect.
 */
export function openDocument(typeName: string, docId: string, locale: string, onNavigation: boolean): OpenRequests {
  const key = keyOf(typeName, docId, locale);
  const prefetched = onNavigation ? started.get(key) : undefined;
  started.delete(key);
  return prefetched ?? start(typeName, docId, locale);
}

function hasArea(fields: readonly FieldSchema[]): boolean {
  return fields.some((field) => field.type === 'area' || hasArea(field.fields ?? []));
}

/**
 * Starts loading the rich-text editor (tiptap, the admin's largest chunk) when the type's form has
 * an area, at the same time as the editor's own code; the field registry's import reuses it.
 */
export function preloadEditorCode(typeName: string): void {
  const type = pieceType(typeName);
  if (type && hasArea(type.fields)) void import('../fields/AreaField.vue');
}
