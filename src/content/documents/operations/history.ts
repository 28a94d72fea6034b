import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { parsePaging } from '../../query/list-params.js';
import { versionId } from '../caller.js';
import { historyTarget, isoTime } from '../history-target.js';
import { maxPerPage } from './list.js';

type HistoryDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'history'>;

export interface HistoryListResult {
  pages: number;
  currentPage: number;
  results: { _id: string; createdAt: string; updatedBy: unknown; action: string; cmsMode: string }[];
}

/** GET …/:_id/history: the entries of the document in the id's locale, newest first, paginated as a list. */
export async function history(deps: HistoryDeps, caller: Caller, typeName: string, rawId: string, query: Readonly<Record<string, unknown>>): Promise<HistoryListResult> {
  const { type, target, scope } = historyTarget(deps.config, caller, typeName, rawId);
  const { page, perPage: asked } = parsePaging(query);
  const perPage = Math.min(asked ?? type.options.perPage, maxPerPage);
  // A document of another type, or with no draft in this locale, has no history to show.
  const [draft] = await deps.store.find({ type: type.name, ids: [versionId(target, 'draft')], limit: 1 });
  if (!draft) throw new NotFoundError();
  const { total, entries } = await deps.history.list(scope, { skip: (page - 1) * perPage, limit: perPage });
  const results = entries.map((entry) => ({ ...entry, createdAt: isoTime(entry.createdAt) }));
  return { pages: Math.ceil(total / perPage), currentPage: page, results };
}
