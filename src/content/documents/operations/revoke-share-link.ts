import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { pieceTypeOf } from '../caller.js';
import { readVersion } from '../version-reads.js';
import { setShareKey, sharedDraftOf } from '../draft-sharing.js';
import { permanentLinkId } from '../preview-links.js';
import { audit } from '../../../core/audit.js';

type RevokeDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions'>;

/**
 * DELETE …/:_id/share/:linkId: revokes one preview link of the draft (`permanent`: the draft's
 * own key, as `{ "share": false }` but leaving the other links). Every read naming it is then a
 * 404. A link that is not the draft's, or is gone, is a 404. Needs edit permission.
 */
export async function revokeShareLink(deps: RevokeDeps, caller: Caller, typeName: string, rawId: string, linkId: string): Promise<{ revoked: string }> {
  const type = pieceTypeOf(deps.config, typeName);
  requireWrite(caller.principal, type, type.options.localized ? 'draft' : null);
  const target = sharedDraftOf(deps.config, type, rawId);
  if (!target) throw new NotFoundError();
  await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await readVersion(tx, type, target.id);
    // An archived draft's links are revoked as a live draft's (those archived before `endSharing` kept theirs).
    if (!draft) throw new NotFoundError();
    const revoked = linkId === permanentLinkId ? await revokeDraftKey(deps, tx, type, draft) : await tx.shareLinks.remove(draft._id, linkId);
    if (!revoked) throw new NotFoundError();
    await audit(tx, caller, { action: 'document.revokeShareLink', type: type.name, ids: [target.docId, target.id], detail: { linkId } });
  });
  return { revoked: linkId };
}

/** Takes the draft's own key away; false when it had none. */
async function revokeDraftKey(deps: RevokeDeps, tx: StorageSession, type: SanitizedPieceType, draft: StoredDocument): Promise<boolean> {
  if (!setShareKey(type, draft, false)) return false;
  await deps.versions.updateBookkeeping(tx, draft);
  return true;
}
