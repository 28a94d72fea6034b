import type { Caller, Target } from '../caller.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { DocumentCollaborators } from '../collaborators.js';
import { canPublish, requirePublish, requireWrite } from '../../access/permissions.js';
import { changeOf } from '../change-events.js';
import { pieceTypeOf, resolveTarget, versionId } from '../caller.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { removeLogin } from '../user-logins.js';
import { markUnpublished } from '../publishing-steps.js';

type RemoveDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'changes' | 'inUse'>;

/**
 * DELETE /api/v1/<type>/:_id: permanent, cascading as the original's `deleteOtherModes`: a draft
 * takes every version of its locale with it (published, previous), a published version only its
 * `previous` copy, leaving the draft unpublished. Removing a published version, either way,
 * needs publish permission.
 */
export async function remove(deps: RemoveDeps, caller: Caller, typeName: string, rawId: string): Promise<void> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  const target = resolveTarget(deps.config, type, rawId, caller);
  requireWrite(principal, type, target.mode);
  await deps.transactions.runOnDocument({ caller, type, set: { ...target, version: target.id } }, async (tx) => {
    const doc = await requireVersion(tx, type, target.id);
    if (target.mode !== null && deps.inUse.guards(type, caller)) await refuseIfShown(deps, tx, { type, caller, target, doc });
    // Written first: a refusal below rolls it back with the rest.
    await deps.changes.record(tx, changeOf('delete', doc, caller), null, doc);
    if (target.mode === null) {
      await removeLogin(tx, type, doc);
      await deps.versions.remove(tx, type, [doc._id]);
      return;
    }
    const published = versionId(target, 'published');
    const previous = versionId(target, 'previous');
    if (target.mode === 'published') {
      await deps.versions.remove(tx, type, [published, previous]);
      const draft = await markUnpublished(deps, tx, type, target);
      if (draft) await deps.changes.recordHistory(tx, 'unpublish', draft, principal);
      return;
    }
    if (!canPublish(principal, type) && (await readVersion(tx, type, published))) {
      requirePublish(principal, type, `Deleting the published version of ${type.name}`);
    }
    await deps.versions.remove(tx, type, [doc._id, published, previous]);
    // Its preview links go with it: a draft made again under the same id (a new localize) starts with none.
    await tx.shareLinks.removeAll(doc._id);
  });
}

/** Both ways take the published version away: refused while published documents show a media piece (MediaInUse). */
async function refuseIfShown(
  deps: Pick<RemoveDeps, 'inUse'>,
  tx: StorageSession,
  args: { type: SanitizedPieceType; caller: Caller; target: Target; doc: StoredDocument },
): Promise<void> {
  const { type, caller, target, doc } = args;
  const published = target.mode === 'published' ? doc : await readVersion(tx, type, versionId(target, 'published'));
  await deps.inUse.refuseIfShown(tx, type, caller, published && !published.archived ? published : null, 'delete');
}
