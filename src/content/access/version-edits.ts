import type { Principal } from '../../core/principal.js';
import type { DocumentStore } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import { canWrite } from './permissions.js';

/**
 * Whether a caller may edit at least one of some document versions (by their stored `_id`), by
 * the rule every write of the document service follows: drafts need the type's editRole,
 * published and non-localized versions its publishRole. A previous version is only ever
 * restored by publishing, so it counts as published. Versions that do not exist, or whose type
 * is no longer configured, give no right.
 */
export function createVersionEditCheck(deps: {
  readonly pieceTypes: ReadonlyMap<string, SanitizedPieceType>;
  readonly documents: Pick<DocumentStore, 'find'>;
}): (principal: Principal, versionIds: readonly string[]) => Promise<boolean> {
  return async (principal, versionIds) => {
    if (versionIds.length === 0) return false;
    const versions = await deps.documents.find({ ids: versionIds, limit: versionIds.length });
    return versions.some((version) => {
      const type = deps.pieceTypes.get(version.type);
      const mode = version.cmsMode === undefined ? null : version.cmsMode === 'draft' ? 'draft' : 'published';
      return type !== undefined && canWrite(principal, type, mode);
    });
  };
}
