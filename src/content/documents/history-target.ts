import type { AppConfig } from '../app-config.js';
import type { HistoryScope } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Caller, SetTarget } from './caller.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { requireWrite } from '../access/permissions.js';
import { localizedTarget, pieceTypeOf } from './caller.js';

const entryIdPattern = /^[a-z][a-z0-9]{23}$/;

/**
 * The document set and locale a history route acts on (the id's locale, or `cmsLocale`), once the
 * caller is known to edit drafts of the type: reading history shows every draft saved, and
 * restoring writes the draft. Every lookup is scoped by the type, the document and the locale.
 */
export function historyTarget(config: AppConfig, caller: Caller, typeName: string, rawId: string): { type: SanitizedPieceType; target: SetTarget; scope: HistoryScope } {
  // The role before the id or the locale is read: a caller who may not edit learns nothing of them.
  requireWrite(caller.principal, pieceTypeOf(config, typeName), 'draft');
  const { type, target } = localizedTarget(config, caller, typeName, rawId);
  return { type, target, scope: { type: type.name, docId: target.docId, locale: target.locale } };
}

/** An entry id from a path: the shape every entry id has, or a 400. */
export function historyEntryId(raw: string): string {
  if (!entryIdPattern.test(raw)) throw new InvalidRequestError('entryId must be a history entry id (24 lowercase letters and digits)', { path: 'entryId' });
  return raw;
}

/** What a history list or entry shows of when: ISO time, as every `createdAt`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
