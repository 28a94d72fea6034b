import type { Principal } from '../../core/principal.js';
import type { ChangeEventName } from '../../config/webhooks-config.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { canPublish } from '../access/permissions.js';
import { updatedBy } from './new-version.js';
import { scheduleProperties, type ScheduleOutput } from './schedules.js';

/*
 * A scheduled publish publishes the draft its scheduler meant (issue 33). Whoever may publish
 * the type and changes the draft after it was scheduled leaves the schedule standing: they could
 * publish that draft by hand, and they saw the schedule on it. Anyone else who changes it (a
 * contributor's save, revert, restore, localize onto it) marks the schedule with that change,
 * and the run refuses it, with the reason, rather than publish content no publisher reviewed.
 * The last change decides: a publisher's save after a contributor's clears the mark. A scheduled
 * unpublish takes the published version offline whatever the draft holds: no change marks it.
 */

/** The change that marks a schedule: who made it, with which role then, and when. */
interface UnreviewedChange {
  readonly by: { _id: string | null; title: string; username: string | null };
  readonly role: string | null;
  readonly at: string;
}

/**
 * In the transaction of a change that left `doc` so, by `principal`: marks the draft's pending
 * scheduled publish with it, or clears the mark when the principal may publish. Costs nothing
 * unless the draft shows a pending scheduled publish.
 */
export async function reviewScheduledPublish(
  tx: StorageSession,
  change: { event: ChangeEventName; doc: StoredDocument; type: SanitizedPieceType; principal: Principal },
): Promise<void> {
  const { event, doc, type, principal } = change;
  // Publishing and unpublishing change no content of the draft.
  if (event === 'publish' || event === 'unpublish' || doc.cmsMode !== 'draft') return;
  if ((doc[scheduleProperties.publish] as ScheduleOutput | undefined)?.status !== 'pending') return;
  const unreviewed: UnreviewedChange | null = canPublish(principal, type) ? null : { by: updatedBy(principal), role: principal.role, at: doc.updatedAt };
  await tx.schedules.setUnreviewedChange({ versionId: doc._id, action: 'publish' }, unreviewed && JSON.stringify(unreviewed));
}

/** Why a scheduled publish of `typeName` marked with this change (as stored) is refused. */
export function unreviewedReason(stored: string, typeName: string): string {
  let change: Partial<UnreviewedChange> = {};
  try {
    change = JSON.parse(stored) as Partial<UnreviewedChange>;
  } catch {
    // A mark this server did not write still refuses the run.
  }
  const who = change.by?.username ?? (change.by?._id === null ? 'An API key' : 'Someone');
  const role = change.role ? ` (${change.role})` : '';
  const when = change.at ? ` at ${change.at}` : '';
  return `${who}${role} changed the draft${when}, after it was scheduled, and may not publish ${typeName}: review it and schedule it again`;
}
