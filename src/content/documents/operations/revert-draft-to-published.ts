import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { requireWrite } from '../../access/permissions.js';
import { localizedTarget, versionId } from '../caller.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { touch } from '../new-version.js';

type RevertDraftDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

/** POST …/:_id/revert-draft-to-published: discards the draft's changes; answers `false` when there is nothing to revert. */
export async function revertDraftToPublished(
  deps: RevertDraftDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
): Promise<VersionOutput | false> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  requireWrite(principal, type, 'draft');
  const draft = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    const published = await readVersion(tx, type, versionId(target, 'published'));
    if (!published || draft.modified === false) return false;
    Object.assign(draft, deps.values.schemaValues(type, published), { modified: false });
    touch(draft, new Date().toISOString(), principal);
    await deps.versions.update(tx, draft);
    return deps.changes.recorded(tx, 'update', draft, caller, 'revert-draft-to-published');
  });
  return draft && deps.presenter.presentOne(draft, type, principal);
}
