import type { ChangeLogStore, LoggedChange } from '../../storage/storage-adapter.js';
import type { ChangeAudience } from './change-audience.js';

export type TombstoneReason = 'deleted' | 'unpublished' | 'archived' | 'hidden';

/** A version the caller had, or could have had, that it can no longer read, and why. */
export interface Tombstone {
  readonly type: string;
  readonly _id: string;
  readonly cmsDocId: string;
  readonly cmsLocale: string | null;
  readonly deletedAt: string;
  readonly reason: TombstoneReason;
}

/** What a page of the log says of one version: its last change, and whether the caller could read it before one of them. */
export interface VersionChange {
  readonly last: LoggedChange;
  readonly readableBefore: boolean;
}

const reasons: Readonly<Record<string, TombstoneReason>> = { delete: 'deleted', unpublish: 'unpublished', archive: 'archived' };

/** The tombstone of a version its last change took out of the caller's view (or out of its filters: `hidden`). */
export function tombstoneOf(change: LoggedChange): Tombstone {
  return { type: change.type, _id: change.id, cmsDocId: change.docId, cmsLocale: change.locale, deletedAt: change.at, reason: reasons[change.action] ?? 'hidden' };
}

/** A bounded read: so many log pages at most per answer, however few of their changes the caller may hear of. */
const maxLogReads = 10;

/**
 * The versions changed after `seq` that the caller may be told of, at most `room` of them, in
 * log order: the entries its audience hears of (the version readable after the change, or
 * before it: its visibility before, `visibilityBefore`; a delete names the version removed) and
 * `selects` keeps (the sync's locale and mode). An entry the caller could read neither before
 * nor after is never named. Answers where the read stopped and whether the log holds more.
 */
export async function changesAfter(
  log: ChangeLogStore,
  args: { audience: ChangeAudience; selects: (change: LoggedChange) => boolean; seq: number; room: number },
): Promise<{ changes: Map<string, VersionChange>; position: number; more: boolean }> {
  const { audience, selects, room } = args;
  const changes = new Map<string, VersionChange>();
  let position = args.seq;
  for (let read = 0; read < maxLogReads; read++) {
    const entries = await log.after(position, room);
    for (const entry of entries) {
      const known = changes.get(entry.id);
      if (!known && changes.size >= room) return { changes, position, more: true };
      position = entry.seq;
      if (!selects(entry)) continue;
      const after = audience.announce(entry) !== null;
      const before = audience.announce({ ...entry, visibility: entry.visibilityBefore ?? entry.visibility }) !== null;
      if (!known && !after && !before) continue;
      changes.set(entry.id, { last: entry, readableBefore: before || known?.readableBefore === true });
    }
    if (entries.length < room) return { changes, position, more: false };
  }
  return { changes, position, more: true };
}
