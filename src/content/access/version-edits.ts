import type { Principal } from '../../core/principal.js';
import type { DocumentStore } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { canWrite } from './permissions.js';

/**
 * Whether a caller may edit at least one of some document versions (by their stored `_id`), by
 * the rule every document write operation follows: drafts need the type's editRole,
 * published and non-localized versions its publishRole. A previous version is only ever
 * restored by publishing, so it counts as published. Versions that do not exist, or whose type
 * is no longer configured, give no right. A lookup by id names its type: only the types the
 * caller may write at all are asked, one query each.
 */
export function createVersionEditCheck(deps: {
  readonly pieceTypes: ReadonlyMap<string, SanitizedPieceType>;
  readonly documents: Pick<DocumentStore, 'find'>;
}): (principal: Principal, versionIds: readonly string[]) => Promise<boolean> {
  return async (principal, versionIds) => {
    if (versionIds.length === 0) return false;
    for (const type of deps.pieceTypes.values()) {
      if (!modes.some((mode) => canWrite(principal, type, mode))) continue;
      const versions = await deps.documents.find({ type: type.name, ids: versionIds, limit: versionIds.length });
      if (versions.some((version) => canWrite(principal, type, modeOf(version.cmsMode)))) return true;
    }
    return false;
  };
}

const modes = ['draft', 'published', null] as const;

function modeOf(mode: string | undefined): 'draft' | 'published' | null {
  return mode === undefined ? null : mode === 'draft' ? 'draft' : 'published';
}
