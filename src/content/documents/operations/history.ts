import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { parsePaging } from '../../query/list-params.js';
import { versionId } from '../caller.js';
import { historyTarget, isoTime } from '../history-target.js';
import { maxPerPage } from './list.js';
import { decodeCursor, digestOf, encodeCursor } from '../../query/list-cursor.js';

type HistoryDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'history'>;

export interface HistoryListResult {
  pages: number;
  currentPage: number;
  /** The `cursor` of the next page, null on the last. */
  nextCursor: string | null;
  results: { _id: string; createdAt: string; updatedBy: unknown; action: string; cmsMode: string }[];
}

/** GET …/:_id/history: the entries of the document in the id's locale, newest first, paginated as a list. */
export async function history(deps: HistoryDeps, caller: Caller, typeName: string, rawId: string, query: Readonly<Record<string, unknown>>): Promise<HistoryListResult> {
  const { type, target, scope } = historyTarget(deps.config, caller, typeName, rawId);
  const { page: numbered, perPage: asked, cursor } = parsePaging(query);
  const perPage = Math.min(asked ?? type.options.perPage, maxPerPage);
  // A cursor of another document's history (or locale's) is refused.
  const digest = digestOf({ list: 'history', scope });
  const place = cursor === undefined ? undefined : decodeCursor(cursor, digest, 1);
  const page = place?.page ?? numbered;
  // A document of another type, or with no draft in this locale, has no history to show.
  const [draft] = await deps.store.find({ type: type.name, ids: [versionId(target, 'draft')], limit: 1 });
  if (!draft) throw new NotFoundError();
  const after = place && { createdAt: savedAt(place.shown[0]), id: place.id };
  // One more than the page tells whether another follows.
  const { total, entries } = await deps.history.list(scope, { skip: place ? 0 : (page - 1) * perPage, limit: perPage + 1, after });
  const shown = entries.slice(0, perPage);
  const last = shown.at(-1);
  const nextCursor = entries.length > perPage && last ? encodeCursor({ page: page + 1, shown: [last.createdAt], id: last._id }, digest) : null;
  const results = shown.map((entry) => ({ ...entry, createdAt: isoTime(entry.createdAt) }));
  return { pages: Math.ceil(total / perPage), currentPage: page, nextCursor, results };
}

/** The time (ms) a history cursor carries; a cursor made by hand with another value is refused. */
function savedAt(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new InvalidRequestError('cursor: is not a cursor this server gave', { parameter: 'cursor' });
}
