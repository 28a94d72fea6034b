import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { Mode } from '../../core/ids.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentStore, StoredDocument, TypeQuery } from '../../storage/storage-adapter.js';
import { visibleValues } from '../access/permissions.js';
import { sortify } from '../../core/text.js';
import { parseDocumentId } from '../../core/ids.js';
import { relatedVersion } from './related-loader.js';
import { ownKeys } from '../indexing/document-indexer.js';

/**
 * Relationship input names related documents by `_id` (full or bare `cmsDocId`) or by title,
 * compared sortified (`"hello, world"` names "Hello World"). Every reference is first tried
 * as an id, all in one query; those that name no document are then tried as titles, in one more.
 */

export interface ReferenceLookup {
  readonly store: DocumentStore;
  readonly config: AppConfig;
  readonly type: SanitizedPieceType;
  readonly principal: Principal;
  readonly locale: string | null;
  readonly mode: Mode | null;
}

/** The documents the references name that the caller can read, in reference order. */
export async function findReferenced(refs: readonly string[], lookup: ReferenceLookup): Promise<{ cmsDocId: string; values: StoredDocument }[]> {
  if (refs.length === 0) return [];
  const query = readable(lookup);
  const byId = await lookup.store.find({ ...query, docIds: refs.map((ref) => parseDocumentId(ref).docId) });
  const idOf = (ref: string) => byId.find((doc) => doc.cmsDocId === parseDocumentId(ref).docId);
  const byTitle = await findByTitles(refs.filter((ref) => !idOf(ref) && !isFullId(ref)), lookup.store, query);
  return refs.flatMap((ref) => {
    const doc = idOf(ref) ?? byTitle.get(sortify(ref));
    return doc ? [{ cmsDocId: doc.cmsDocId, values: doc }] : [];
  });
}

/** What the caller may read of the type, in the locale and mode of the document being written. */
function readable(lookup: ReferenceLookup): TypeQuery {
  return {
    type: lookup.type.name,
    ...relatedVersion(lookup.config, lookup.type, lookup),
    archived: false,
    visibility: visibleValues(lookup.principal),
    sort: [{ field: 'createdAt', direction: 1 }],
    // Only their ids and fields are looked at (crop fields), and they are not written back.
    reverseIds: false,
  };
}

/** `<cmsDocId>:<locale>:<mode>` names a document, never a title. */
function isFullId(ref: string): boolean {
  return parseDocumentId(ref).mode !== undefined;
}

/**
 * Every title in one indexed query on the sortified titles (`ownKeys.title`); the oldest
 * match of each wins, as the query is sorted by creation.
 */
async function findByTitles(titles: readonly string[], store: DocumentStore, query: TypeQuery): Promise<Map<string, StoredDocument>> {
  const sortified = [...new Set(titles.map(sortify))].filter((title) => title !== '');
  const found = new Map<string, StoredDocument>();
  if (sortified.length === 0) return found;
  const candidates = await store.find({ ...query, conditions: [{ key: ownKeys.title, op: 'in', values: sortified }] });
  for (const doc of candidates) {
    const title = sortify(String(doc.title ?? ''));
    if (!found.has(title)) found.set(title, doc);
  }
  return found;
}
