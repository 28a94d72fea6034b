import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { VersionChangedError } from '../../errors/app-error.js';

/**
 * What a write's `If-Match` asks: `*` (the document exists), or that one of these versions is
 * still current (each a `versionValidator` that an earlier answer's ETag carried).
 */
export type Precondition = '*' | readonly string[];

const modeLetters: Record<string, string> = { draft: 'd', published: 'p', previous: 'v' };

/**
 * Names one state of one version: its mode and its `updatedAt`, which every change of its
 * content moves forward (`touch`). Bookkeeping that changes no content (`modified`,
 * `lastPublishedAt`) leaves it, so publishing a draft does not make its editor's copy stale.
 */
export function versionValidator(doc: StoredDocument): string {
  const letter = modeLetters[String(doc.cmsMode)] ?? 'u';
  const time = Date.parse(doc.updatedAt);
  return letter + (Number.isFinite(time) ? time.toString(36) : Buffer.from(doc.updatedAt).toString('base64url'));
}

/**
 * Refuses (412, nothing written) a write whose precondition names no current version it may
 * act on. A write whose path names one version (PUT, PATCH, DELETE: `version`) must name that
 * version's current state, as RFC 9110 has it: a draft's PATCH sent with the published
 * version's ETag is refused. An action on the document set (publish, localize, the reverts…)
 * accepts any current version of the set in this locale, the one its client read. Runs in the
 * write's transaction, after its document is held, so no other write can come between the
 * check and the write, in this process or another.
 */
export async function requireUnchanged(
  tx: StorageSession,
  type: SanitizedPieceType,
  set: { readonly docId: string; readonly locale: string | null; readonly version?: string },
  precondition: Precondition | undefined,
): Promise<void> {
  if (precondition === undefined || precondition === '*') return;
  const inSet = await tx.documents.find({ type: type.name, docIds: [set.docId], ...(set.locale === null ? {} : { locale: set.locale }) });
  const versions = set.version === undefined ? inSet : inSet.filter((version) => version._id === set.version);
  const current = new Set(versions.map(versionValidator));
  if (precondition.some((validator) => current.has(validator))) return;
  // The version the client read, as it is now: the one named, else the one of the mode its validator names.
  const named = set.version !== undefined ? versions[0] : versions.find((version) => precondition.some((validator) => validator[0] === versionValidator(version)[0]));
  throw changedError(named ?? null);
}

function changedError(version: StoredDocument | null): VersionChangedError {
  if (!version) return new VersionChangedError('The version named by If-Match no longer exists', { updatedAt: null, updatedBy: null });
  const by = version.updatedBy as { title?: string; username?: string } | undefined;
  const who = by?.title || by?.username || 'Someone';
  return new VersionChangedError(`${who} changed this document at ${version.updatedAt}, after the version named by If-Match`, {
    updatedAt: version.updatedAt,
    updatedBy: version.updatedBy ?? null,
  });
}
