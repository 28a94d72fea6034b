import type { Caller, SetTarget } from '../caller.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
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
  const published = await deps.transactions.runOnDocument({ caller, type, set: target }, (tx) => revertPublishedSteps(deps, tx, type, target, caller));
  return deps.presenter.presentOne(published, type, principal);
}

/** The revert's steps in the caller's transaction, which holds the document (a release's revert runs them for each of its documents). */
export async function revertPublishedSteps(
  deps: Pick<DocumentCollaborators, 'versions' | 'values' | 'changes'>,
  tx: StorageSession,
  type: SanitizedPieceType,
  target: SetTarget,
  caller: Caller,
): Promise<StoredDocument> {
  const published = await requireVersion(tx, type, versionId(target, 'published'));
  const previous = await readVersion(tx, type, versionId(target, 'previous'));
  if (!previous) throw new InvalidRequestError('There is no previously published version to revert to');
  Object.assign(published, deps.values.schemaValues(type, previous));
  touch(published, new Date().toISOString(), caller.principal);
  await assignSlug(tx, type, [published]);
  await deps.versions.remove(tx, type, [previous._id]);
  await deps.versions.update(tx, published);
  await refreshModified(deps, tx, type, target);
  return deps.changes.recorded(tx, 'update', published, caller, 'revert-published-to-previous');
}
