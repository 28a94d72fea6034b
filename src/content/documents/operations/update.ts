import type { Principal } from '../../../core/principal.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { Caller, Target } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import type { WritePasswords } from '../../fields/password-hasher.js';
import type { ConversionTarget } from '../conversion.js';
import { requirePublish, requireWrite } from '../../access/permissions.js';
import { pieceTypeOf, resolveTarget, versionId } from '../caller.js';
import { replayedIds, touch } from '../new-version.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { settleNames } from '../archived-names.js';
import { endSharing } from '../draft-sharing.js';
import { saveLogin } from '../user-logins.js';
import { publishDraft } from '../publishing-steps.js';
import { sendBackIfChanged } from '../review-state.js';
import { lockRequestOf, type LockRequest } from '../advisory-locks.js';
import type { ImageReplacement } from '../image-recrop.js';

export type UpdateDeps = Pick<
  DocumentCollaborators,
  'config' | 'transactions' | 'conversion' | 'versions' | 'values' | 'changes' | 'presenter' | 'imageRecrop' | 'inUse'
>;

/** One version about to change: as stored (`existing`), and what converting its new values needs. */
export interface VersionToChange extends ConversionTarget {
  readonly existing: StoredDocument;
}

/** The step that makes a version's new values: the body of a PUT (`replace`) or a PATCH (`patch`). */
export type NewValues = (version: VersionToChange) => Promise<Record<string, unknown>>;

/** What one PUT or PATCH asks besides its fields: the body's control properties. */
export interface Update {
  /** Which route asks it: the audit record's verb for a save that neither archives nor restores. */
  readonly action: 'replace' | 'patch';
  /** null: the body holds no field (empty, or only `_advisoryLock`): nothing is saved. */
  readonly newValues: NewValues | null;
  readonly lock: LockRequest | null;
  /** `_publish: true`: the draft is published after the update (localized, non-autopublishing types). */
  readonly publish: boolean;
}

/**
 * A PUT or PATCH body without its control properties, and what they ask. Both routes honour
 * `_advisoryLock`; only PATCH reads `_publish` and `_patches` (patch-body.ts; a PUT's conversion
 * ignores `_patches` as any unknown key), as the original's convertPatchAndRefresh does and its
 * convertUpdateAndRefresh does not: every read answer carries `_publish: true` as a permission
 * flag, so a PUT of a draft as it was read must not publish it.
 */
export function controlsOf(
  body: Readonly<Record<string, unknown>>,
  route: Update['action'],
): { fields: Record<string, unknown>; lock: LockRequest | null; publish: boolean; saves: boolean } {
  const { _advisoryLock: _lock, _publish: publish, ...fields } = body;
  // As the original: a body that is empty or holds only the lock saves nothing (no `updatedAt` move).
  const saves = Object.keys(body).some((key) => key !== '_advisoryLock');
  return { fields, lock: lockRequestOf(body), publish: route === 'patch' && publish === true, saves };
}

/**
 * The script PUT and PATCH share: hold the document (its advisory lock and `If-Match` checked
 * first), find the version (and, in published mode, the draft), make each one's new values with
 * `newValues`, save them with bookkeeping, spread `archived` to every version of the locale,
 * recompute the draft's `modified`, publish an autopublishing type's draft, or the draft the
 * body's `_publish` asks to publish.
 */
export async function update(deps: UpdateDeps, caller: Caller, typeName: string, rawId: string, change: Update): Promise<VersionOutput> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  const target = resolveTarget(deps.config, type, rawId, caller);
  requireWrite(principal, type, target.mode);
  const publishAfter = change.publish && target.mode === 'draft' && !type.options.autopublish;
  if (publishAfter) requirePublish(principal, type);
  const write = { caller, type, set: { ...target, version: target.id }, advisoryLock: { versionId: target.id, request: change.lock } };
  let replacement: ImageReplacement | null = null;
  const saved = await deps.transactions.runOnDocument(write, async (tx, passwords) => {
    const { newValues } = change;
    if (!newValues) return requireVersion(tx, type, target.id);
    const stored = await save(deps, tx, { type, target, caller, action: change.action, passwords, newValues, replaced: (found) => (replacement = found) });
    if (!publishAfter) return stored;
    // The publish event shows the published version, as the publish route's; the answer is the draft, as the original's.
    const published = await publishDraft(deps, tx, type, { docId: target.docId, locale: target.locale! }, principal);
    await deps.changes.recorded(tx, 'publish', published, caller);
    return (await readVersion(tx, type, target.id))!;
  });
  // An image's new file: the crops of the relationships showing it follow (see image-recrop.ts for why after).
  if (replacement) await deps.imageRecrop.carryOut(replacement);
  return deps.presenter.presentOne(saved, type, principal);
}

/** Saves the new values of the version (and, in published mode, its draft); answers the version as saved. */
async function save(
  deps: UpdateDeps,
  tx: StorageSession,
  args: {
    type: SanitizedPieceType;
    target: Target;
    caller: Caller;
    action: Update['action'];
    passwords: WritePasswords;
    newValues: NewValues;
    replaced: (replacement: ImageReplacement) => void;
  },
): Promise<StoredDocument> {
  const { type, target, caller, passwords, newValues } = args;
  const { principal } = caller;
  const now = new Date().toISOString();
  const { version, draft, published, changed } = await versionsToChange(tx, type, target);
  const archivedBefore = version.archived;
  const attachmentBefore = deps.imageRecrop.attachmentOf(type, version);
  const ids = replayedIds();
  // A reviewed draft whose content changes goes back to the stage before publishFrom (review-state.ts).
  const draftBefore = draft && type.options.review ? structuredClone(draft) : null;
  for (const doc of changed) {
    const mode = (doc.cmsMode ?? null) as Target['mode'];
    Object.assign(doc, await newValues({ type, existing: doc, locale: target.locale, mode, principal, session: tx, passwords, ids: ids() }));
    touch(doc, now, principal);
  }
  // Each version keeps its own slug: a draft's unpublished slug change stays in the draft.
  // Archiving frees the names (slug, a user's login names), restoring takes them back.
  for (const doc of changed) await settleNames(tx, type, [doc]);
  // Archiving ends the draft's key and preview links; restoring reopens none (draft-sharing.ts).
  if (version.archived !== archivedBefore) for (const doc of changed) await endSharing(tx, doc);
  // Known (slugs included) before the versions are saved, so the draft is written once
  // (`archived`, which spreadArchived may change below, is not compared).
  if (draft) draft.modified = deps.values.isModified(type, draft, published);
  if (draft && draftBefore) sendBackIfChanged(type, deps.values, draftBefore, draft, now);
  if (target.mode === null) await saveLogin(tx, type, version);
  for (const doc of changed) await deps.versions.update(tx, doc);
  // Both modes' versions name the documents relating to the image (its published one, before the autopublish below).
  const replacement = deps.imageRecrop.replacement(type, attachmentBefore, [...new Set([version, draft ?? version, published ?? version])]);
  if (replacement) args.replaced(replacement);
  if (version.archived !== archivedBefore) {
    // Archiving takes the published version away from the documents showing it (MediaInUse).
    const live = published && (published === version || !published.archived) ? published : null;
    if (version.archived) await deps.inUse.refuseIfShown(tx, type, caller, live, 'archive');
    await spreadArchived(deps, tx, { type, target, archived: version.archived, done: changed, now, principal });
  }
  // One event for the request: archiving or restoring says so, any other change is an update.
  const event = version.archived === archivedBefore ? 'update' : version.archived ? 'archive' : 'restore';
  const action = event === 'update' ? args.action : undefined;
  if (target.mode === 'draft' && type.options.autopublish) {
    await publishDraft(deps, tx, type, { docId: target.docId, locale: target.locale! }, principal);
    // Publishing changed the draft through a copy of its own.
    return deps.changes.recorded(tx, event, (await readVersion(tx, type, target.id))!, caller, event, action);
  }
  return deps.changes.recorded(tx, event, version, caller, event, action);
}

/** The version asked for, the draft and published versions of its locale, and those this write changes. */
async function versionsToChange(tx: StorageSession, type: SanitizedPieceType, target: Target) {
  const version = await requireVersion(tx, type, target.id);
  const other = target.mode === null ? null : await readVersion(tx, type, versionId(target, target.mode === 'draft' ? 'published' : 'draft'));
  const draft = target.mode === 'draft' ? version : other;
  const published = target.mode === 'published' ? version : other;
  // In published mode the same change also reaches the draft.
  const changed = [version, ...(target.mode === 'published' && draft ? [draft] : [])];
  return { version, draft, published, changed };
}

/**
 * Archiving any version archives every version of that locale; restoring restores them all,
 * and either ends the draft's sharing. Taking the published version offline (or back) through its draft needs publish permission:
 * the caller's transaction fails with a 403 and nothing changes. Each version changed records
 * who changed it.
 */
async function spreadArchived(
  deps: Pick<UpdateDeps, 'versions'>,
  tx: StorageSession,
  args: { type: SanitizedPieceType; target: Target; archived: boolean; done: readonly StoredDocument[]; now: string; principal: Principal },
): Promise<void> {
  const { type, target, archived, principal } = args;
  if (target.locale === null) return;
  const siblings = (await tx.documents.find({ type: type.name, docIds: [target.docId], locale: target.locale })).filter(
    (sibling) => sibling.archived !== archived && !args.done.some((doc) => doc._id === sibling._id),
  );
  if (siblings.some((sibling) => sibling.cmsMode !== 'draft')) {
    requirePublish(principal, type, `${archived ? 'Archiving' : 'Restoring'} the published version of ${type.name}`);
  }
  for (const sibling of siblings) {
    sibling.archived = archived;
    touch(sibling, args.now, principal);
    await settleNames(tx, type, [sibling]);
    await endSharing(tx, sibling);
    await deps.versions.update(tx, sibling);
  }
}
