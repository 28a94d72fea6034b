import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { canReadType, readableArchived, visibleValues } from '../../access/permissions.js';
import { parseArchived, renderingOf } from '../../query/list-params.js';
import { pieceTypeOf, resolveTarget } from '../caller.js';
import { requestedShape } from '../requested-shape.js';
import { findSharedDraft, shareRequestOf } from '../draft-sharing.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import { AnswerSources } from '../../generation-keys.js';

type GetOneDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'shareLinks' | 'presenter' | 'areas'>;

/**
 * GET /api/v1/<type>/:_id: one version; `archived=any|1` reaches archived documents for callers
 * with API access, `renderAreas` renders areas. With `cmsShareId` and `cmsShareKey`, the shared
 * draft they name, whoever asks (`draft-sharing.ts`).
 */
export async function getOne(
  deps: GetOneDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
  query: Readonly<Record<string, unknown>> = {},
): Promise<VersionOutput> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  const share = shareRequestOf(query);
  const doc = share ? await findSharedDraft(deps, caller, type, rawId, share) : await findVersion(deps, caller, type, rawId, query);
  // A shared draft is never kept: nothing to note.
  const { document, validator, sources } = await deps.presenter.presentOne(doc, type, principal, share ? undefined : new AnswerSources());
  return { document: requestedShape(deps.areas, document, { render: renderingOf(query) }), validator, ...(sources && { sources }) };
}

/** The version the id names, as the caller may read it: no draft without draft access, no archived one without API access. */
async function findVersion(deps: GetOneDeps, caller: Caller, type: SanitizedPieceType, rawId: string, query: Readonly<Record<string, unknown>>) {
  const { principal } = caller;
  const target = resolveTarget(deps.config, type, rawId, caller);
  if (!canReadType(principal, type)) throw new NotFoundError();
  const [doc] = await deps.store.find({
    ids: [target.id],
    type: type.name,
    archived: readableArchived(principal, type, parseArchived(query.archived)),
    visibility: visibleValues(principal),
    limit: 1,
  });
  if (!doc) throw new NotFoundError();
  return doc;
}
