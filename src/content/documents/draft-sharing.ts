import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../app-config.js';
import type { Caller } from './caller.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentStore, ShareLinkStore, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { linkOpens } from './preview-links.js';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { canReadType, visibleValues } from '../access/permissions.js';
import { composeId, parseDocumentId } from '../../core/ids.js';

/*
 * Sharing a draft (facts 1.3, `POST :_id/share`): the draft gets a random key, and a GET of that
 * draft naming it (`cmsShareId=<draft _id>&cmsShareKey=<key>`) reads that one draft, whoever
 * asks. The key lives in the stored draft, so unsharing ends every process's reads at once.
 * Only callers who may edit the draft ever see the key (`DocumentPresenter`); it is no field,
 * so no filter, sort or choice reaches it.
 */

/** The draft property that holds its share key. */
export const shareKeyProperty = 'cmsShareKey';

/** The query parameters of a shared read. */
export const shareQueryParams = ['cmsShareId', 'cmsShareKey'] as const;

// 256 bits from the system's cryptographic source: a key cannot be guessed.
const shareKeyBytes = 32;

/** What a shared read names: the draft's `_id` and its key ('' for what it left out). */
export interface ShareRequest {
  readonly id: string;
  readonly key: string;
}

/** The draft a share route names: only a full draft `_id` of a localized type, as in the original. */
export interface SharedDraft {
  readonly id: string;
  readonly docId: string;
  readonly locale: string;
}

/** Whether a GET names a shared read: its answer is for its caller alone, never kept in a cache. */
export function isSharedRead(query: Readonly<Record<string, unknown>>): boolean {
  return shareQueryParams.some((name) => query[name] !== undefined);
}

/** The shared read a GET names, or null; one parameter without the other reads nothing. */
export function shareRequestOf(query: Readonly<Record<string, unknown>>): ShareRequest | null {
  if (!isSharedRead(query)) return null;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { id: text(query.cmsShareId), key: text(query.cmsShareKey) };
}

/** The body of `POST :_id/share`: `{ "share": true }` shares, `false` unshares; anything else is a 400. */
export function shareFlagOf(body: Readonly<Record<string, unknown>>): boolean {
  if (typeof body.share !== 'boolean') throw new InvalidRequestError('share must be true or false', { path: 'share' });
  return body.share;
}

/** The draft a full `<cmsDocId>:<locale>:draft` id names; null for any other id or a type without drafts. */
export function sharedDraftOf(config: AppConfig, type: SanitizedPieceType, rawId: string): SharedDraft | null {
  const { docId, locale, mode } = parseDocumentId(rawId);
  if (!type.options.localized || mode !== 'draft' || locale === undefined || !config.locales.has(locale) || docId === '') return null;
  return { id: composeId(docId, locale, 'draft'), docId, locale };
}

/**
 * Whether the type's drafts can be shared: it has pages (`pagePath`) or a front end that shows
 * its documents (`preview`, live preview). Any other type has no URL to share, as in the original.
 */
export function isShareable(type: SanitizedPieceType): boolean {
  return type.options.pagePath !== null || type.options.preview !== null;
}

/**
 * Gives the draft a share key (`share`: true; a key it has is kept) or takes it away; answers
 * whether the draft changed. A type that is not shareable: nothing changes, as in the original.
 */
export function setShareKey(type: SanitizedPieceType, draft: StoredDocument, share: boolean): boolean {
  if (!isShareable(type)) return false;
  const current = draft[shareKeyProperty];
  if (share) {
    if (typeof current === 'string') return false;
    draft[shareKeyProperty] = randomBytes(shareKeyBytes).toString('base64url');
    return true;
  }
  if (current === undefined) return false;
  delete draft[shareKeyProperty];
  return true;
}

/**
 * Ends the sharing of a draft being archived or restored, in that write's transaction: the key
 * leaves the version about to be written, the preview links leave the store. An archived draft's
 * links stop at once (its list is then empty) and a restore reopens none, revoked, expired or
 * not; a draft archived before this rule keeps its links, listed and revocable, until restored.
 */
export async function endSharing(tx: Pick<StorageSession, 'shareLinks'>, doc: StoredDocument): Promise<void> {
  if (doc.cmsMode !== 'draft') return;
  delete doc[shareKeyProperty];
  await tx.shareLinks.removeAll(doc._id);
}

/**
 * The draft a shared read reaches: the one the path names, which must be the very `cmsShareId`
 * (no other version, locale or list), live, visible to the caller, of a type the caller may read,
 * and holding that key. Any failure is the same 404.
 */
export async function findSharedDraft(
  deps: { config: AppConfig; store: DocumentStore; shareLinks: ShareLinkStore },
  caller: Caller,
  type: SanitizedPieceType,
  rawId: string,
  share: ShareRequest,
): Promise<StoredDocument> {
  const { principal } = caller;
  const draft = sharedDraftOf(deps.config, type, rawId);
  const sameVersion = draft !== null && rawId === share.id && asksNoOther(caller, draft);
  if (!sameVersion || !canReadType(principal, type) || share.key === '') throw new NotFoundError();
  const [doc] = await deps.store.find({ ids: [draft.id], type: type.name, archived: false, visibility: visibleValues(principal), limit: 1 });
  if (!doc) throw new NotFoundError();
  // The draft's own key, else a preview link of this draft that has not expired (preview-links.ts).
  if (!sameKey(doc[shareKeyProperty], share.key) && !(await linkOpens(deps.shareLinks, doc._id, share.key, new Date()))) throw new NotFoundError();
  return doc;
}

/** `cmsLocale` and `cmsMode`, when sent, must name the shared draft itself. */
function asksNoOther(caller: Caller, draft: SharedDraft): boolean {
  const localeOk = caller.locale === undefined || caller.locale === draft.locale || caller.locale === `${draft.locale}:draft`;
  return localeOk && (caller.mode === undefined || caller.mode === 'draft');
}

/**
 * Compares a stored key with a given one in constant time (digests of equal length); a draft
 * without a key takes as long as one with another key.
 */
function sameKey(stored: unknown, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const equal = timingSafeEqual(digest(typeof stored === 'string' ? stored : ''), digest(given));
  return equal && typeof stored === 'string';
}
