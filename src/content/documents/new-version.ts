import type { Principal } from '../../core/principal.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';
import { sortify } from '../../core/text.js';
import { newId, type Mode } from '../../core/ids.js';

/** A new version with the bookkeeping properties every stored document has. */
export function newVersion(args: {
  type: SanitizedPieceType;
  docId: string;
  locale: string | null;
  mode: Mode | null;
  values: Record<string, unknown>;
  now: string;
  principal: Principal;
}): StoredDocument {
  const { type, docId, locale, mode, now } = args;
  const localized = locale !== null && mode !== null;
  const doc: StoredDocument = {
    _id: localized ? `${docId}:${locale}:${mode}` : docId,
    cmsDocId: docId,
    ...(localized ? { cmsLocale: `${locale}:${mode}`, cmsMode: mode } : {}),
    type: type.name,
    metaType: 'doc',
    title: '',
    slug: '',
    titleSortified: '',
    visibility: 'public',
    archived: false,
    createdAt: now,
    updatedAt: now,
  };
  Object.assign(doc, args.values, { createdAt: now, updatedAt: now, updatedBy: updatedBy(args.principal) });
  doc.titleSortified = sortify(String(doc.title ?? ''));
  return doc;
}

/**
 * Marks a version as changed now by the principal. `updatedAt` only moves forward, by a
 * millisecond at least: it names the version's state in its validator (`versionValidator`),
 * so two changes within one millisecond, or under a clock set back, must still differ.
 */
export function touch(doc: StoredDocument, now: string, principal: Principal): void {
  moveUpdatedAt(doc, now);
  doc.updatedBy = updatedBy(principal);
  doc.titleSortified = sortify(String(doc.title ?? ''));
}

/** Sets `updatedAt` to `now`, or a millisecond past its value when that is not earlier (see `touch`). */
export function moveUpdatedAt(doc: StoredDocument, now: string): void {
  const before = Date.parse(doc.updatedAt);
  doc.updatedAt = before >= Date.parse(now) ? new Date(before + 1).toISOString() : now;
}

/** Who last changed a document: the user, or the original's "System Task" for API keys. */
export function updatedBy(principal: Principal): { _id: string | null; title: string; username: string | null } {
  if (principal.kind === 'user') {
    return { _id: principal.userId, title: principal.title ?? '', username: principal.username };
  }
  return { _id: null, title: 'System Task', username: null };
}

/**
 * An id source for converting the same input into several versions: each new converter replays
 * the ids the first one generated, in order, so a published-mode write gives the new widgets and
 * items of the draft and the published version the same ids (and the draft stays unmodified).
 */
export function replayedIds(): () => () => string {
  const generated: string[] = [];
  return () => {
    let next = 0;
    return () => {
      if (next < generated.length) return generated[next++]!;
      const id = newId();
      generated.push(id);
      next++;
      return id;
    };
  };
}
