import { listPieces } from '../api/pieces';
import type { AuditRecord } from '../api/types';
import { session } from '../session';

/** The document a record is about, as the audit screen links it. */
export interface AuditedDocument {
  readonly type: string;
  readonly cmsDocId: string;
  readonly locale: string;
  readonly title: string;
}

/** Where a record's document is looked up: its type, `cmsDocId` and locale (the schema's types only). */
function documentOf(record: AuditRecord): Omit<AuditedDocument, 'title'> | undefined {
  const cmsDocId = record.ids[0];
  if (!record.type || !cmsDocId || !record.action.startsWith('document.') || !session.schema?.types[record.type]) return undefined;
  const locale = typeof record.detail?.locale === 'string' ? record.detail.locale : session.locale;
  return { type: record.type, cmsDocId, locale };
}

export const auditedKey = (doc: Omit<AuditedDocument, 'title'>) => `${doc.type} ${doc.locale} ${doc.cmsDocId}`;

/** The key of a record's document in the map `auditedDocuments` answers, or undefined when it names none. */
export function auditedKeyOf(record: AuditRecord): string | undefined {
  const doc = documentOf(record);
  return doc && auditedKey(doc);
}

/**
 * The titles of the documents a page of records names: one list request per type and locale on
 * the page (`_ids[]`, titles only, archived ones too), never one per record. A document deleted
 * since is not answered: its record keeps showing the ids.
 */
export async function auditedDocuments(records: readonly AuditRecord[], signal?: AbortSignal): Promise<Map<string, AuditedDocument>> {
  const wanted = new Map<string, { type: string; locale: string; ids: Set<string> }>();
  for (const record of records) {
    const doc = documentOf(record);
    if (!doc) continue;
    const group = `${doc.type} ${doc.locale}`;
    if (!wanted.has(group)) wanted.set(group, { type: doc.type, locale: doc.locale, ids: new Set() });
    wanted.get(group)!.ids.add(doc.cmsDocId);
  }
  const found = new Map<string, AuditedDocument>();
  await Promise.all(
    [...wanted.values()].map(async ({ type, locale, ids }) => {
      const answer = await listPieces(type, { locale, mode: 'draft' }, { _ids: [...ids], project: { title: 1, cmsDocId: 1 }, archived: 'any', perPage: ids.size }, signal);
      for (const doc of answer.results) {
        const audited = { type, locale, cmsDocId: doc.cmsDocId, title: doc.title || '(untitled)' };
        found.set(auditedKey(audited), audited);
      }
    }),
  );
  return found;
}
