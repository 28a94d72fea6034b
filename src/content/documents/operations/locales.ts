import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { canAccessApi, canReadType, canViewDrafts, visibleValues } from '../../access/permissions.js';
import { parseDocumentId } from '../../../core/ids.js';
import { pieceTypeOf } from '../caller.js';

type LocalesDeps = Pick<DocumentCollaborators, 'config' | 'store'>;

/**
 * GET …/:_id/locales: every version of the document set, all locales and modes (`previous` too,
 * as the original lists them); only published ones for callers without draft access.
 */
export async function locales(
  deps: LocalesDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
): Promise<{ results: { _id: string; cmsLocale: string }[] }> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  if (!canReadType(principal, type)) throw new NotFoundError();
  const docId = parseDocumentId(rawId).docId;
  const drafts = canViewDrafts(principal, type);
  // Callers without API access learn only of versions they could GET.
  const docs = await deps.store.find({
    type: type.name,
    docIds: [docId],
    ...(canAccessApi(principal, type) ? {} : { archived: false, visibility: visibleValues(principal) }),
    sort: [{ field: '_id', direction: 1 }],
  });
  const results = docs.filter((doc) => doc.cmsMode === 'published' || drafts).map((doc) => ({ _id: doc._id, cmsLocale: doc.cmsLocale! }));
  return { results };
}
