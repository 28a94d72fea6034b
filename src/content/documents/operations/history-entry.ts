import type { StoredDocument } from '../../../storage/storage-adapter.js';
import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { historyEntryId, historyTarget, isoTime } from '../history-target.js';

type HistoryEntryDeps = Pick<DocumentCollaborators, 'config' | 'history' | 'presenter'>;

/**
 * GET …/:_id/history/:entryId: the entry (as the list shows it) and, under `document`, the version
 * as the entry's change left it, presented as a GET presents a version (relationships as they are
 * now). An id of another document's entry, or another locale's, is a 404.
 */
export async function historyEntry(deps: HistoryEntryDeps, caller: Caller, typeName: string, rawId: string, rawEntryId: string): Promise<DocumentOutput> {
  const { type, scope } = historyTarget(deps.config, caller, typeName, rawId);
  const entry = await deps.history.get(scope, historyEntryId(rawEntryId));
  if (!entry) throw new NotFoundError();
  const [document] = await deps.presenter.present([entry.data as StoredDocument], { type, principal: caller.principal });
  const { _id, createdAt, updatedBy, action, cmsMode } = entry;
  return { _id, createdAt: isoTime(createdAt), updatedBy, action, cmsMode, document };
}
