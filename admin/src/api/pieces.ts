import { request, type Query, type RequestOptions } from './client';
import type { HistoryEntry, HistoryPage, ListAnswer, Mode, PieceDocument } from './types';
import { formatDateTime, t } from '../i18n';

/**
 * The piece endpoints of the interface, one function each. Every call names its locale and mode
 * explicitly, so the admin never depends on the server's defaults.
 */
export interface Scope {
  readonly locale: string;
  readonly mode?: Mode;
}

function scopeQuery(scope: Scope, extra: Query = {}): Query {
  return { cmsLocale: scope.locale, cmsMode: scope.mode ?? 'draft', ...extra };
}

/**
 * What a write may add: `ifMatch`, the ETag of the version it is based on (read it with `etagOf`
 * from the answer that brought the version), and `keepalive` for a write sent as the page goes.
 */
export type WriteOptions = Pick<RequestOptions, 'ifMatch' | 'keepalive'>;

/**
 * A delete or a patch that may archive: `force` deletes or archives an image or file although
 * published documents show it (the server refuses it otherwise: 409 with `data.documents`).
 */
export type RemovalOptions = WriteOptions & { readonly force?: boolean };

function withForce({ force, ...options }: RemovalOptions): RequestOptions {
  return force ? { ...options, query: { force: 'true' } } : options;
}

function path(type: string, id?: string, action?: string): string {
  return `/${type}${id ? `/${encodeURIComponent(id)}` : ''}${action ? `/${action}` : ''}`;
}

export function listPieces(type: string, scope: Scope, query: Query = {}, signal?: AbortSignal) {
  return request<ListAnswer>(path(type), { query: scopeQuery(scope, query), signal });
}

export function getPiece(type: string, id: string, scope: Scope, query: Query = {}) {
  return request<PieceDocument>(path(type, id), { query: scopeQuery(scope, query) });
}

/** The version again, unless the copy whose ETag is `etag` is still current (then undefined: a 304). */
export function getPieceIfChanged(type: string, id: string, scope: Scope, query: Query, etag: string) {
  return request<PieceDocument | undefined>(path(type, id), { query: scopeQuery(scope, query), ifNoneMatch: etag });
}

/** Schema defaults for a new document (`_newInstance`), saving nothing. */
export function newPiece(type: string, scope: Scope) {
  return request<PieceDocument>(path(type), { method: 'POST', query: scopeQuery(scope), body: { _newInstance: true } });
}

export function insertPiece(type: string, scope: Scope, body: Record<string, unknown>) {
  return request<PieceDocument>(path(type), { method: 'POST', query: scopeQuery(scope), body });
}

/** PUT: the whole document (what an editor form saves). */
export function replacePiece(type: string, id: string, body: Record<string, unknown>, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id), { method: 'PUT', body, ...options });
}

export function patchPiece(type: string, id: string, body: Record<string, unknown>, options: RemovalOptions = {}) {
  return request<PieceDocument>(path(type, id), { method: 'PATCH', body, ...withForce(options) });
}

export function deletePiece(type: string, id: string, options: RemovalOptions = {}) {
  return request<void>(path(type, id), { method: 'DELETE', ...withForce(options) });
}

export function publishPiece(type: string, id: string, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, 'publish'), { method: 'POST', ...options });
}

export function unpublishPiece(type: string, id: string, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, 'unpublish'), { method: 'POST', ...options });
}

/** Discard draft changes. Answers `false` when there is nothing to revert. */
export function revertDraftToPublished(type: string, id: string, options: WriteOptions = {}) {
  return request<PieceDocument | false>(path(type, id, 'revert-draft-to-published'), { method: 'POST', ...options });
}

/** Undo the last publish. */
export function revertPublishedToPrevious(type: string, id: string, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, 'revert-published-to-previous'), { method: 'POST', ...options });
}

export function localizePiece(type: string, id: string, toLocale: string, update = false, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, 'localize'), { method: 'POST', body: { toLocale, update }, ...options });
}

/** The body of a schedule: a time (ISO) schedules that action, null cancels it, absent leaves it. */
export interface ScheduleBody {
  publishAt?: string | null;
  unpublishAt?: string | null;
}

/** Schedules the draft's publish and/or unpublish (`POST …/schedule`); answers the draft. */
export function schedulePiece(type: string, id: string, body: ScheduleBody, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, 'schedule'), { method: 'POST', body, ...options });
}

/** Every version of the document set: `{ _id, cmsLocale }` with cmsLocale like `en:draft`. */
export function pieceLocales(type: string, id: string) {
  return request<{ results: { _id: string; cmsLocale: string }[] }>(path(type, id, 'locales'));
}

/** One page of the history of a document in the id's locale, newest first. */
export function pieceHistory(type: string, id: string, page = 1, perPage = 100) {
  return request<HistoryPage>(path(type, id, 'history'), { query: { page: String(page), perPage: String(perPage) } });
}

/** One history entry, with the version as its change left it under `document`. */
export function pieceHistoryEntry(type: string, id: string, entryId: string) {
  return request<HistoryEntry & { document: PieceDocument }>(path(type, id, `history/${encodeURIComponent(entryId)}`));
}

/** The draft takes the content of a history entry; nothing is published. Answers the draft. */
export function restorePieceHistory(type: string, id: string, entryId: string, options: WriteOptions = {}) {
  return request<PieceDocument>(path(type, id, `history/${encodeURIComponent(entryId)}/restore`), { method: 'POST', ...options });
}

/**
 * Archives or restores a document in one locale through its draft: the server spreads it to the
 * published version (with publish permission), and `If-Match` names the draft the caller read.
 */
export function setArchived(type: string, draft: Pick<PieceDocument, 'cmsDocId' | 'cmsLocale'>, archived: boolean, options: RemovalOptions = {}) {
  const locale = draft.cmsLocale.split(':')[0]!;
  return patchPiece(type, versionId(draft.cmsDocId, locale, 'draft'), { archived }, options);
}

/** Where a draft stands against its published version, as the list and the editor show it. */
export type DocumentStatus = 'draft' | 'published' | 'modified';

export function documentStatus(draft: Pick<PieceDocument, 'modified' | 'lastPublishedAt'>): DocumentStatus {
  if (!draft.lastPublishedAt) return 'draft';
  return draft.modified ? 'modified' : 'published';
}

/** A status as the badges name it, in the interface language. */
export function statusLabel(status: DocumentStatus): string {
  return t(`status.${status}`);
}

/** A draft's schedule as it shows it (`scheduledPublish`, `scheduledUnpublish`). */
export type Schedule = NonNullable<PieceDocument['scheduledPublish']>;

/**
 * The list's schedule badge: "Scheduled" while one waits, "Schedule failed" (with the reason as
 * its title) when one was refused at its time; null without any.
 */
export function scheduleBadge(draft: Pick<PieceDocument, 'scheduledPublish' | 'scheduledUnpublish'>): { label: string; failed: boolean; title: string } | null {
  const schedules = [draft.scheduledPublish, draft.scheduledUnpublish].filter((one): one is Schedule => !!one);
  const failed = schedules.find((one) => one.status === 'failed');
  if (failed) return { label: t('schedule.badgeFailed'), failed: true, title: failed.reason ?? '' };
  const next = schedules.sort((a, b) => a.at.localeCompare(b.at))[0];
  if (!next) return null;
  const action = next === draft.scheduledPublish ? 'schedule.publishesAt' : 'schedule.unpublishesAt';
  // Shown in the browser's time, which it names, as the editor's schedule panel does.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { label: t('schedule.badge'), failed: false, title: t(action, { when: formatDateTime(next.at), zone }) };
}

/** The full `_id` of one version of a document. */
export function versionId(docId: string, locale: string, mode: Mode): string {
  return `${docId}:${locale}:${mode}`;
}

/** A live preview link of a draft, as `GET …/:_id/share` lists it (never its key). */
export interface ShareLink {
  readonly _id: string;
  readonly createdAt: string | null;
  readonly createdBy: { readonly title?: string | null } | null;
  readonly expiresAt: string | null;
}

/** The live preview links of a draft (`draftId`: its full `_id`). */
export function listShareLinks(type: string, draftId: string) {
  return request<{ results: ShareLink[] }>(path(type, draftId, 'share'));
}

/** Makes a preview link of the draft that expires after `expiresIn` seconds; its key is in this answer only. */
export function createShareLink(type: string, draftId: string, expiresIn: number) {
  return request<PieceDocument>(path(type, draftId, 'share'), { method: 'POST', body: { share: true, expiresIn } });
}

export function revokeShareLink(type: string, draftId: string, linkId: string) {
  return request<{ revoked: string }>(`${path(type, draftId, 'share')}/${encodeURIComponent(linkId)}`, { method: 'DELETE' });
}

/** Where the type's front end shows the draft (`POST …/preview-url`): a URL with a fresh preview link, its origin and expiry. */
export interface PreviewUrl {
  readonly url: string;
  readonly origin: string;
  readonly expiresAt: string;
}

/** The front end's URL of the draft for a type with `preview`; `expiresIn` (seconds) sets its link's lifetime. */
export function getPreviewUrl(type: string, draftId: string, expiresIn?: number) {
  return request<PreviewUrl>(path(type, draftId, 'preview-url'), { method: 'POST', body: expiresIn === undefined ? {} : { expiresIn } });
}
