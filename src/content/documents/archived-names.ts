import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { userTypeName } from '../../core/principal.js';
import { assignSlug } from './slugs.js';
import { archivedName, liveName } from './archive-prefix.js';

/*
 * Archiving frees a document's names (facts 4.3, 13): an archived version holds its slug, and a
 * user its username and email, behind `deduplicate-<cmsDocId>-`, so a live document may take
 * them. Restoring takes them back when they are still free: a slug taken meanwhile gets the
 * usual `-2` suffix, a username or email taken meanwhile stays prefixed (as in the original),
 * for an admin to rename.
 */

/** The properties of a user that name its login, freed with its slug. */
const loginNames = ['username', 'email'] as const;

/**
 * Gives versions about to be stored the names their archived state asks for: freed while
 * archived, taken back on restore. `cmsWasArchived` records, as the original's
 * `aposWasArchived`, that a version was archived: true while it is, false once restored.
 */
export async function settleNames(session: StorageSession, type: SanitizedPieceType, versions: readonly StoredDocument[]): Promise<void> {
  await assignSlug(session, type, versions);
  for (const version of versions) {
    await settleLoginNames(session, type, version);
    if (version.archived) version.cmsWasArchived = true;
    else if (version.cmsWasArchived) version.cmsWasArchived = false;
  }
}

/** A user's username and email: prefixed while archived, unprefixed on restore unless another login took them. */
async function settleLoginNames(session: StorageSession, type: SanitizedPieceType, user: StoredDocument): Promise<void> {
  if (type.name !== userTypeName) return;
  const restoring = !user.archived && user.cmsWasArchived === true;
  for (const key of loginNames) {
    const name = user[key];
    if (typeof name !== 'string' || name === '') continue;
    if (user.archived) user[key] = archivedName(name, user.cmsDocId);
    else if (restoring) {
      const live = liveName(name, user.cmsDocId);
      const holder = await session.logins.findByName(live);
      if (holder === null || holder.userId === user._id) user[key] = live;
    }
  }
}
