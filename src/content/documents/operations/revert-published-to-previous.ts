import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import { requirePublish } from '../../access/permissions.js';
import { localizedTarget, versionId } from '../caller.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { touch } from '../new-version.js';
import { assignSlug } from '../slugs.js';
import { refreshModified } from '../publishing-steps.js';

type RevertPublishedDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

/** POST …/:_id/revert-published-to-previous: undoes the last publish; the previous copy becomes the published version again. */
export async function revertPublishedToPrevious(deps: RevertPublishedDeps, caller: Caller, typeName: string, rawId: string): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  requirePublish(principal, type);
  const published = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const published = await requireVersion(tx, type, versionId(target, 'published'));
    const previous = await readVersion(tx, type, versionId(target, 'previous'));
    if (!previous) throw new InvalidRequestError('There is no previously published version to revert to');
    Object.assign(published, deps.values.schemaValues(type, previous));
    touch(published, new Date().toISOString(), principal);
    await assignSlug(tx, type, [published]);
    await deps.versions.remove(tx, type, [previous._id]);
    await deps.versions.update(tx, published);
    await refreshModified(deps, tx, type, target);
    return deps.changes.recorded(tx, 'update', published, caller, 'revert-published-to-previous');
  });
  return deps.presenter.presentOne(published, type, principal);
}
