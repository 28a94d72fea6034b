import type { Principal } from '../../core/principal.js';
import type { StorageSession, StoredDocument, StoredReleaseDocument } from '../../storage/storage-adapter.js';
import type { DocumentCollaborators } from './collaborators.js';
import type { ReleaseDocumentOutput } from './release-bodies.js';
import { parseDocumentId } from '../../core/ids.js';
import { canWrite } from '../access/permissions.js';
import { versionId } from './caller.js';

/* The batched reads of releases: by type, a few hundred ids a statement, never one per document. */

type ReleaseReadDeps = Pick<DocumentCollaborators, 'config' | 'store'>;

// Ids a store lookup takes at once (SQLite's bound parameters, one statement's size).
const lookupChunk = 500;

/** The type of each draft id, by a lookup of each type the caller may edit (batched). */
export async function typesOf(deps: ReleaseReadDeps, principal: Principal, ids: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (ids.length === 0) return found;
  for (const type of deps.config.pieceTypes.values()) {
    if (!type.options.localized || !canWrite(principal, type, 'draft')) continue;
    for (const chunk of chunks(ids.filter((id) => !found.has(id)), lookupChunk)) {
      if (chunk.length === 0) continue;
      const docs = await deps.store.find({ type: type.name, ids: chunk, mode: 'draft', limit: chunk.length });
      for (const doc of docs) found.set(doc._id, type.name);
    }
  }
  return found;
}


/** The drafts among `documents` that have a published version now (batched by type). */
export async function publishedNow(deps: ReleaseReadDeps, tx: StorageSession, documents: readonly StoredReleaseDocument[]): Promise<Set<string>> {
  const published = new Set<string>();
  for (const [typeName, docs] of byType(documents)) {
    for (const chunk of chunks(docs.map((doc) => versionId(setOf(doc.versionId), 'published')), lookupChunk)) {
      for (const doc of await tx.documents.find({ type: typeName, ids: chunk, limit: chunk.length })) published.add(versionId(setOf(doc._id), 'draft'));
    }
  }
  return published;
}


export async function states(deps: ReleaseReadDeps, documents: readonly StoredReleaseDocument[]): Promise<ReleaseDocumentOutput[]> {
  const versions = new Map<string, StoredDocument>();
  for (const [typeName, docs] of byType(documents)) {
    const ids = docs.flatMap((doc) => [doc.versionId, versionId(setOf(doc.versionId), 'published')]);
    for (const chunk of chunks(ids, lookupChunk)) {
      for (const doc of await deps.store.find({ type: typeName, ids: chunk, limit: chunk.length })) versions.set(doc._id, doc);
    }
  }
  return documents.map((doc) => {
    const draft = versions.get(doc.versionId);
    const published = versions.get(versionId(setOf(doc.versionId), 'published'));
    const state = !draft ? 'missing' : published && draft.modified !== true ? 'published' : 'modified';
    return { _id: doc.versionId, type: doc.type, title: draft ? String(draft.title ?? '') : null, state };
  });
}

export function setOf(draftId: string): { docId: string; locale: string } {
  const { docId, locale } = parseDocumentId(draftId);
  return { docId, locale: locale! };
}

export function docIdsOf(documents: readonly StoredReleaseDocument[]): string[] {
  return [...new Set(documents.map((doc) => setOf(doc.versionId).docId))].sort();
}

export function byType(documents: readonly StoredReleaseDocument[]): Map<string, StoredReleaseDocument[]> {
  const map = new Map<string, StoredReleaseDocument[]>();
  for (const doc of documents) map.set(doc.type, [...(map.get(doc.type) ?? []), doc]);
  return map;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

