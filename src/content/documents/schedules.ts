import type { NewSchedule, ScheduleAction, ScheduleStatus, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { Caller } from './caller.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { updatedBy } from './new-version.js';
import { namesCalendarDate } from '../fields/date.js';

/*
 * Scheduled publishing (issue 25, `POST :_id/schedule`). A schedule lives twice, written in one
 * transaction: on the draft (`scheduledPublish`, `scheduledUnpublish`), which every answer of the
 * draft shows and whose generation moves with it, and as a row of the store's due-time index
 * (`ScheduleStore`), which the scheduler claims from. Neither is a field: no filter, sort or
 * projection reaches the draft properties; the list filter `scheduled` reads the index.
 */

/** The draft property that shows each action's schedule. */
export const scheduleProperties: Readonly<Record<ScheduleAction, string>> = {
  publish: 'scheduledPublish',
  unpublish: 'scheduledUnpublish',
};

export const scheduleActions: readonly ScheduleAction[] = ['publish', 'unpublish'];

/**
 * A schedule as the draft shows it: when, who scheduled it (as `updatedBy` names a user), and
 * whether it waits (`pending`) or ran and was refused (`failed`, with the refusal's `reason`).
 * A failed schedule stays until it is scheduled again or cancelled.
 */
export interface ScheduleOutput {
  at: string;
  by: { _id: string | null; title: string; username: string | null };
  status: 'pending' | 'failed';
  reason?: string;
}

/**
 * Who scheduled it, as the index keeps it: enough to act as them at the time, with the role they
 * have then (a user's read again, an API key's asked of the configuration and the store).
 */
export interface ScheduledBy {
  readonly kind: 'user' | 'apiKey';
  readonly userId: string | null;
  readonly title: string;
  readonly username: string | null;
  /** An API key's caller id (`Caller.keyCallerId`); null for a user, or a key not recorded (an import). */
  readonly keyId: string | null;
}

/** Per action: a time to schedule, null to cancel; an action left out stays as it is. */
export type ScheduleRequest = Partial<Record<ScheduleAction, Date | null>>;

/** The body's name of each action's time (the audit record of a schedule repeats them). */
export const scheduleTimeKeys = { publish: 'publishAt', unpublish: 'unpublishAt' } as const satisfies Record<ScheduleAction, string>;

const bodyKeys: Readonly<Record<string, ScheduleAction>> = Object.fromEntries(scheduleActions.map((action) => [scheduleTimeKeys[action], action]));

// A date and a time with seconds optional and a zone: what `Date.parse` reads the same everywhere.
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The body of `POST :_id/schedule`: `publishAt` and `unpublishAt`, each an ISO 8601 date-time
 * with a zone or null (cancel), at least one of them and nothing else. A time more than
 * `toleranceMs` before `now` is refused: it would run at once, which a publish does better.
 */
export function scheduleRequestOf(body: Readonly<Record<string, unknown>>, now: number, toleranceMs: number): ScheduleRequest {
  const request: ScheduleRequest = {};
  for (const key of Object.keys(body)) {
    const action = Object.hasOwn(bodyKeys, key) ? bodyKeys[key]! : undefined;
    if (action === undefined) throw new InvalidRequestError(`Unknown property ${JSON.stringify(key.slice(0, 100))}: send publishAt and/or unpublishAt`, { path: key.slice(0, 100) });
    request[action] = scheduleTimeOf(body[key], key, now, toleranceMs);
  }
  if (Object.keys(request).length === 0) throw new InvalidRequestError('Send publishAt and/or unpublishAt (an ISO date-time, or null to cancel)');
  return request;
}

function scheduleTimeOf(value: unknown, path: string, now: number, toleranceMs: number): Date | null {
  if (value === null) return null;
  // `Date.parse` rolls 2030-02-31 over into March: the day must exist in its month.
  const time = typeof value === 'string' && isoDateTime.test(value) && namesCalendarDate(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(time)) throw new InvalidRequestError(`${path} must be an ISO 8601 date-time with a zone (2030-01-31T09:00:00Z) or null`, { path });
  if (time < now - toleranceMs) throw new InvalidRequestError(`${path} is in the past`, { path });
  return new Date(time);
}

/**
 * Refuses a draft whose pending schedules would unpublish before (or when) they publish: with
 * both set, `unpublishAt` must come after `publishAt`.
 */
export function checkScheduleOrder(draft: StoredDocument): void {
  const publish = pendingAt(draft, 'publish');
  const unpublish = pendingAt(draft, 'unpublish');
  if (publish !== null && unpublish !== null && unpublish <= publish) {
    throw new InvalidRequestError('unpublishAt must come after publishAt', { path: 'unpublishAt' });
  }
}

function pendingAt(draft: StoredDocument, action: ScheduleAction): number | null {
  const shown = draft[scheduleProperties[action]] as ScheduleOutput | undefined;
  return shown?.status === 'pending' ? Date.parse(shown.at) : null;
}

/** Who a caller is, as the index keeps it. */
export function scheduledByOf(caller: Caller): ScheduledBy {
  const { principal } = caller;
  const { _id, title, username } = updatedBy(principal);
  const isUser = principal.kind === 'user';
  return { kind: isUser ? 'user' : 'apiKey', userId: _id, title, username, keyId: isUser ? null : (caller.keyCallerId ?? null) };
}

/** The stored `scheduled_by` read back; null when it is not one this server wrote. */
export function parseScheduledBy(text: string): ScheduledBy | null {
  try {
    const value = JSON.parse(text) as Partial<ScheduledBy>;
    if (value.kind !== 'user' && value.kind !== 'apiKey') return null;
    return {
      kind: value.kind,
      userId: typeof value.userId === 'string' ? value.userId : null,
      title: String(value.title ?? ''),
      username: typeof value.username === 'string' ? value.username : null,
      keyId: typeof value.keyId === 'string' ? value.keyId : null,
    };
  } catch {
    return null;
  }
}

/** Removes every schedule of these drafts, in the transaction that removes them. */
export async function removeSchedules(tx: StorageSession, draftIds: readonly string[]): Promise<void> {
  for (const versionId of draftIds) for (const action of scheduleActions) await tx.schedules.remove({ versionId, action });
}

/** The draft property of a pending schedule at `at`, by `by`. */
export function pendingSchedule(at: Date, by: ScheduledBy): ScheduleOutput {
  return { at: at.toISOString(), by: { _id: by.userId, title: by.title, username: by.username }, status: 'pending' };
}

/**
 * The index rows a stored draft's schedules stand for (`cms import`: an archive holds the drafts,
 * not the index). Who scheduled it comes back as the draft shows it: a user by id, read again at
 * the time; an API key without its id, so its schedule fails at the time, with the reason.
 */
export function scheduleRowsOf(doc: StoredDocument): { schedule: NewSchedule; status: ScheduleStatus }[] {
  if (doc.cmsMode !== 'draft' || doc.cmsLocale === undefined) return [];
  return scheduleActions.flatMap((action) => {
    const shown = doc[scheduleProperties[action]] as Partial<ScheduleOutput> | undefined;
    const dueAt = typeof shown?.at === 'string' ? Date.parse(shown.at) : Number.NaN;
    if (!shown || !Number.isFinite(dueAt) || (shown.status !== 'pending' && shown.status !== 'failed')) return [];
    const userId = typeof shown.by?._id === 'string' ? shown.by._id : null;
    const by: ScheduledBy = { kind: userId ? 'user' : 'apiKey', userId, title: String(shown.by?.title ?? ''), username: shown.by?.username ?? null, keyId: null };
    const locale = doc.cmsLocale!.split(':')[0]!;
    const schedule: NewSchedule = { versionId: doc._id, action, type: doc.type, docId: doc.cmsDocId, locale, dueAt, by: JSON.stringify(by) };
    return [{ schedule, status: shown.status }];
  });
}
