import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { pieceTypeOf } from '../caller.js';
import { readVersion } from '../version-reads.js';
import { audit } from '../../../core/audit.js';
import { setShareKey, shareFlagOf, sharedDraftOf } from '../draft-sharing.js';

type ShareDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'presenter'>;

/**
 * POST …/:_id/share: `{ "share": true }` gives the draft a share key, `false` takes it away
 * (`draft-sharing.ts`); answers the draft, with its key when shared. Only a full draft `_id`
 * names it, and only a live draft the caller may edit is found (404 otherwise, as the original).
 * Sharing changes no content: `updatedAt`, the draft's validator, stays.
 */
export async function share(deps: ShareDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  requireWrite(principal, type, type.options.localized ? 'draft' : null);
  const shared = shareFlagOf(body);
  const target = sharedDraftOf(deps.config, type, rawId);
  if (!target) throw new NotFoundError();
  const draft = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const found = await readVersion(tx, type, target.id);
    if (!found || found.archived) throw new NotFoundError();
    if (setShareKey(type, found, shared)) {
      await deps.versions.updateBookkeeping(tx, found);
      // Never the key: whoever reads the trail learns that a draft was shared, not how to read it.
      await audit(tx, caller, { action: shared ? 'document.share' : 'document.unshare', type: type.name, ids: [target.docId, target.id] });
    }
    return found;
  });
  return deps.presenter.presentOne(draft, type, principal);
}
