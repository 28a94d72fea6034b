import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { audit } from '../../../core/audit.js';
import { requirePublish } from '../../access/permissions.js';
import { localizedTarget, pieceTypeOf, versionId, type SetTarget } from '../caller.js';
import { readVersion } from '../version-reads.js';
import {
  checkScheduleOrder,
  pendingSchedule,
  scheduleActions,
  scheduledByOf,
  scheduleProperties,
  scheduleRequestOf,
  scheduleTimeKeys,
  type ScheduleRequest,
  type ScheduledBy,
} from '../schedules.js';

/** What a schedule request changed, by the body's names: a time set, or null for a schedule removed. */
type TimesChanged = Partial<Record<(typeof scheduleTimeKeys)[keyof typeof scheduleTimeKeys], string | null>>;

type ScheduleDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'presenter'>;

/**
 * POST …/:_id/schedule: `{ "publishAt": ISO | null, "unpublishAt": ISO | null }` schedules the
 * draft of the id's locale to be published (unpublished) then, by the scheduler of any process,
 * acting as the caller; null cancels (`schedules.ts`). Needs publish permission. Answers the
 * draft, which shows `scheduledPublish` and `scheduledUnpublish`. Scheduling changes no
 * content: `updatedAt`, the draft's validator, stays. The audit record (`document.schedule`, or
 * `document.unschedule` when it only cancels) names what changed; a cancel of nothing writes none.
 */
export async function schedule(deps: ScheduleDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { principal } = caller;
  // The role before the id or the locale is read, as the other lifecycle routes.
  const type = pieceTypeOf(deps.config, typeName);
  requirePublish(principal, type, `Scheduling ${type.name}`);
  const { target } = localizedTarget(deps.config, caller, typeName, rawId);
  const request = scheduleRequestOf(body, Date.now(), deps.config.limits.scheduleTolerance);
  const by = scheduledByOf(caller);
  const draft = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const found = await readVersion(tx, type, versionId(target, 'draft'));
    if (!found) throw new NotFoundError();
    const changed = await applySchedule(tx, { draft: found, target, request, by });
    checkScheduleOrder(found);
    await deps.versions.updateBookkeeping(tx, found);
    const times = Object.values(changed);
    if (times.length > 0) {
      const action = times.some((at) => at !== null) ? 'document.schedule' : 'document.unschedule';
      await audit(tx, caller, { action, type: type.name, ids: [target.docId, found._id], detail: { locale: target.locale, mode: 'draft', ...changed } });
    }
    return found;
  });
  return deps.presenter.presentOne(draft, type, principal);
}

/**
 * Writes each action the request names to the draft and the due-time index (null: removes it);
 * answers what changed, by the body's names: a time set, or null for a schedule removed.
 */
async function applySchedule(
  tx: StorageSession,
  args: { draft: StoredDocument; target: SetTarget; request: ScheduleRequest; by: ScheduledBy },
): Promise<TimesChanged> {
  const { draft, target, request, by } = args;
  const changed: TimesChanged = {};
  for (const action of scheduleActions) {
    const at = request[action];
    if (at === undefined) continue;
    const key = { versionId: draft._id, action };
    if (at === null) {
      if (await tx.schedules.remove(key)) changed[scheduleTimeKeys[action]] = null;
      delete draft[scheduleProperties[action]];
      continue;
    }
    await tx.schedules.put({ ...key, type: draft.type, docId: target.docId, locale: target.locale, dueAt: at.getTime(), by: JSON.stringify(by) });
    draft[scheduleProperties[action]] = pendingSchedule(at, by);
    changed[scheduleTimeKeys[action]] = at.toISOString();
  }
  return changed;
}
