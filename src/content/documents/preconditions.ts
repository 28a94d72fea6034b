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
 * Refuses (412, nothing written) a write whose precondition names no current version of the
 * document set in this locale. Runs in the write's transaction, after its document is held,
 * so no other write can come between the check and the write, in this process or another.
 */
export async function requireUnchanged(
  tx: StorageSession,
  type: SanitizedPieceType,
  set: { readonly docId: string; readonly locale: string | null },
  precondition: Precondition | undefined,
): Promise<void> {
  if (precondition === undefined || precondition === '*') return;
  const versions = await tx.documents.find({ type: type.name, docIds: [set.docId], ...(set.locale === null ? {} : { locale: set.locale }) });
  const current = new Set(versions.map(versionValidator));
  if (precondition.some((validator) => current.has(validator))) return;
  // The version the client read, as it is now: the one of the mode its validator names.
  const named = versions.find((version) => precondition.some((validator) => validator[0] === versionValidator(version)[0]));
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
