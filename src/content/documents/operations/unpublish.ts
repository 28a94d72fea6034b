import type { Caller } from '../caller.js';
import type { StorageSession } from '../../../storage/storage-adapter.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { requirePublish } from '../../access/permissions.js';
import { localizedTarget, versionId } from '../caller.js';
import { requireVersion } from '../version-reads.js';
import { markUnpublished } from '../publishing-steps.js';

type UnpublishDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'changes' | 'presenter'>;

/**
 * POST …/:_id/unpublish: removes the published version (and its previous copy); the draft stays,
 * marked modified. `firstStep` runs first in its transaction (as `publish`'s).
 */
export async function unpublish(
  deps: UnpublishDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
  firstStep?: (tx: StorageSession) => Promise<void>,
): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  requirePublish(principal, type);
  const draft = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    await firstStep?.(tx);
    const published = await requireVersion(tx, type, versionId(target, 'published'));
    await deps.versions.remove(tx, type, [published._id, versionId(target, 'previous')]);
    const draft = await markUnpublished(deps, tx, type, target);
    // Throwing inside the transaction rolls the removal back: never a published-only set half undone.
    if (!draft) throw new NotFoundError();
    return deps.changes.recorded(tx, 'unpublish', draft, caller);
  });
  return deps.presenter.presentOne(draft, type, principal);
}
