import type { StoredDocument } from './interface/documents.js';

/*
 * How both adapters keep a version's `relatedReverseIds` (see StoredDocument): the ids as rows of
 * `document_reverse_ids` (target version id, source `cmsDocId`, in the order added), and in the
 * version's data only an empty array, which marks a version some relationship named. So a version
 * whose data holds no array has no rows, and a page of versions none of which is marked (any type
 * no relationship targets) costs no read of the rows at all.
 */

/** A version as its row keeps it, and the reverse ids to keep apart (null: it has none, no mark). */
export function splitReverseIds(doc: StoredDocument): { readonly stored: StoredDocument; readonly ids: readonly string[] | null } {
  const ids = doc.relatedReverseIds;
  if (!Array.isArray(ids)) return { stored: doc, ids: null };
  if (ids.length === 0) return { stored: doc, ids };
  return { stored: { ...doc, relatedReverseIds: [] }, ids: ids.filter((id): id is string => typeof id === 'string') };
}

/** The ids of the versions whose data marks them as named by some relationship. */
export function markedVersionIds(docs: readonly StoredDocument[]): string[] {
  return docs.filter((doc) => Array.isArray(doc.relatedReverseIds)).map((doc) => doc._id);
}

/** The reverse ids of one version, in the order added, as the adapters read them (one row per version). */
export interface ReverseIdsRow {
  readonly target_id: string;
  readonly ids: readonly string[];
}

/**
 * Gives the marked versions of `docs` their reverse ids, read by `read` (one query for the page,
 * each version's ids aggregated in the database: one array per version, not a row per id).
 * Versions not marked are left as they are.
 */
export async function fillReverseIds(
  docs: StoredDocument[],
  read: (versionIds: readonly string[]) => Promise<readonly ReverseIdsRow[]> | readonly ReverseIdsRow[],
): Promise<StoredDocument[]> {
  const marked = markedVersionIds(docs);
  if (marked.length === 0) return docs;
  const byTarget = new Map<string, readonly string[]>();
  for (const row of await read(marked)) byTarget.set(row.target_id, row.ids);
  for (const doc of docs) if (Array.isArray(doc.relatedReverseIds)) doc.relatedReverseIds = [...(byTarget.get(doc._id) ?? [])];
  return docs;
}

/** `current` moved to `stamp` when that is later (ISO times compare as text). */
export function laterStamp(current: unknown, stamp: string): string {
  return typeof current === 'string' && current > stamp ? current : stamp;
}
