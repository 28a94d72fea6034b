import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { canReadType, readableArchived, visibleValues } from '../../access/permissions.js';
import { parseArchived, projectionOf, renderingOf } from '../../query/list-params.js';
import { pieceTypeOf, resolveTarget } from '../caller.js';
import { requestedShape } from '../requested-shape.js';
import { findSharedDraft, shareRequestOf } from '../draft-sharing.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import { AnswerSources } from '../../generation-keys.js';
import { chainIds, fillFallbackFields, firstInChain, localeChainOf, localeOf, markFallbackFields, markFallbackLocale, unfilled } from '../locale-fallback.js';

type GetOneDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'shareLinks' | 'presenter' | 'areas'>;

/**
 * GET /api/v1/<type>/:_id: one version; `archived=any|1` reaches archived documents for callers
 * with API access, `project` keeps or removes properties, `renderAreas` renders areas. With
 * `cmsShareId` and `cmsShareKey`, the shared draft they name, whoever asks (`draft-sharing.ts`).
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
  const shape = shapeOf(query);
  const share = shareRequestOf(query);
  if (share) {
    // A shared draft is never kept: nothing to note.
    const shared = await deps.presenter.presentOne(await findSharedDraft(deps, caller, type, rawId, share), type, principal);
    return { ...shared, document: requestedShape(deps.areas, shared.document, shape) };
  }
  const sources = new AnswerSources();
  const found = await findVersion(deps, caller, type, rawId, query, sources);
  const fill = found.target.mode === 'published' ? await fillFallbackFields(deps, type, [found.doc], found.access) : unfilled([found.doc]);
  const [doc = found.doc] = fill.docs;
  const presented = await deps.presenter.presentOne(doc, type, principal, sources);
  // Marked after `project`, which keeps them whatever it names, as on the list.
  const document = requestedShape(deps.areas, presented.document, shape);
  if (found.target.locale !== null) markFallbackLocale(document, doc, found.target.locale);
  markFallbackFields(document, fill.filled.get(doc._id));
  // Filled fields come from the document's other versions: the answer depends on every one of them.
  if (fill.filled.size > 0) chainIds(found.target.docId, localeChainOf(deps.config, localeOf(found.doc)!), 'published').forEach((id) => sources.versions.add(id));
  return { document, validator: presented.validator, sources };
}

/** `project` and `renderAreas`, as the list reads them: the original's GET one takes the list's parameters. */
function shapeOf(query: Readonly<Record<string, unknown>>) {
  return { project: projectionOf(query), render: renderingOf(query) };
}

/**
 * The version the id names, as the caller may read it: no draft without draft access, no
 * archived one without API access. A published version missing in its locale is looked for
 * along the locale's fallback chain, in the same query (`locale-fallback.ts`); the answer then
 * depends on the versions before it in the chain too (`sources`), which a write may create.
 */
async function findVersion(
  deps: GetOneDeps,
  caller: Caller,
  type: SanitizedPieceType,
  rawId: string,
  query: Readonly<Record<string, unknown>>,
  sources: AnswerSources,
) {
  const { principal } = caller;
  const target = resolveTarget(deps.config, type, rawId, caller);
  if (!canReadType(principal, type)) throw new NotFoundError();
  const access = { archived: readableArchived(principal, type, parseArchived(query.archived)), visibility: visibleValues(principal) };
  const ids = target.mode === 'published' && target.locale !== null ? chainIds(target.docId, localeChainOf(deps.config, target.locale), 'published') : [target.id];
  const found = await deps.store.find({ ids, type: type.name, ...access, limit: ids.length });
  const doc = firstInChain(found, ids);
  if (!doc) throw new NotFoundError();
  ids.slice(0, ids.indexOf(doc._id)).forEach((id) => sources.versions.add(id));
  return { doc, target, access };
}
