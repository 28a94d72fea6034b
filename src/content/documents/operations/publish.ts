import type { Caller } from '../caller.js';
import type { StorageSession } from '../../../storage/storage-adapter.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { requirePublish } from '../../access/permissions.js';
import { localizedTarget } from '../caller.js';
import { publishDraft } from '../publishing-steps.js';

type PublishDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

/**
 * POST …/:_id/publish: publishes the draft; answers the newly published version. `firstStep`
 * runs first in its transaction (a scheduled run claims its schedule there: schedule-runner.ts).
 */
export async function publish(
  deps: PublishDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
  firstStep?: (tx: StorageSession) => Promise<void>,
): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  requirePublish(principal, type);
  const published = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    await firstStep?.(tx);
    return deps.changes.recorded(tx, 'publish', await publishDraft(deps, tx, type, target, principal), caller);
  });
  return deps.presenter.presentOne(published, type, principal);
}
