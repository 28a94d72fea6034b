import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { requirePublish } from '../../access/permissions.js';
import { localizedTarget } from '../caller.js';
import { publishDraft } from '../publishing-steps.js';

type PublishDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

/** POST …/:_id/publish: publishes the draft; answers the newly published version. */
export async function publish(deps: PublishDeps, caller: Caller, typeName: string, rawId: string): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  requirePublish(principal, type);
  const published = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    return deps.changes.recorded(tx, 'publish', await publishDraft(deps, tx, type, target, principal), caller);
  });
  return deps.presenter.presentOne(published, type, principal);
}
