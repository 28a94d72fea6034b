import { listPieces } from '../api/pieces';
import type { FieldSchema, WidgetSchema } from '../api/types';
import { pieceType } from '../session';
import { heldIds } from '../relationships/related';

/** A document the edited one relates to, which localizing may have to bring along. */
export interface RelatedDocument {
  readonly type: string;
  readonly cmsDocId: string;
  readonly title: string;
}
type Holder = Record<string, unknown>;

const isHolder = (value: unknown): value is Holder => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every localized document the relationships of `doc` name: top level, inside arrays and
 * objects, and inside area widgets (their fields, nested arrays and areas too). Titles come from
 * the expanded `_name` documents; ids the caller cannot read show by id.
 */
export function relatedDocuments(fields: readonly FieldSchema[], doc: Holder, widgets: Readonly<Record<string, WidgetSchema>>): RelatedDocument[] {
  const found = new Map<string, RelatedDocument>();
  const add = (type: string, cmsDocId: unknown, title: unknown) => {
    if (typeof cmsDocId !== 'string' || !pieceType(type)?.localized) return;
    const key = `${type} ${cmsDocId}`;
    if (found.has(key) && !title) return;
    found.set(key, { type, cmsDocId, title: typeof title === 'string' && title ? title : cmsDocId });
  };
  const walk = (schema: readonly FieldSchema[], holder: Holder) => {
    for (const field of schema) {
      const value = holder[field.name];
      if (field.type === 'relationship' && field.withType) {
        for (const id of heldIds(holder, field.name)) add(field.withType, id, undefined);
        const expanded = holder[`_${field.name.replace(/^_/, '')}`];
        if (Array.isArray(expanded)) for (const related of expanded.filter(isHolder)) add(field.withType, related.cmsDocId ?? String(related._id).split(':')[0], related.title);
      } else if (field.type === 'array' && Array.isArray(value)) {
        for (const item of value.filter(isHolder)) walk(field.fields ?? [], item);
      } else if (field.type === 'object' && isHolder(value)) {
        walk(field.fields ?? [], value);
      } else if (field.type === 'area' && isHolder(value) && Array.isArray(value.items)) {
        for (const widget of value.items.filter(isHolder)) walk(widgets[String(widget.type)]?.fields ?? [], widget);
      }
    }
  };
  walk(fields, doc);
  return [...found.values()];
}

/** The list endpoint takes at most 100 per page. */
const pageSize = 100;

/**
 * Those of `related` that have no draft in `locale`: one list request per related type (per
 * hundred ids), all at once, asking only for the ids that exist there.
 */
export async function missingInLocale(related: readonly RelatedDocument[], locale: string): Promise<RelatedDocument[]> {
  const byType = new Map<string, RelatedDocument[]>();
  for (const doc of related) byType.set(doc.type, [...(byType.get(doc.type) ?? []), doc]);
  const lookups = [...byType].flatMap(([type, docs]) => {
    const chunks: RelatedDocument[][] = [];
    for (let start = 0; start < docs.length; start += pageSize) chunks.push(docs.slice(start, start + pageSize));
    return chunks.map((chunk) =>
      listPieces(type, { locale, mode: 'draft' }, {
        _ids: chunk.map((doc) => doc.cmsDocId),
        project: { _id: 1 },
        perPage: pageSize,
        archived: 'any',
      }),
    );
  });
  const present = new Set<string>();
  for (const answer of await Promise.all(lookups)) {
    for (const result of answer.results) present.add(`${result.type} ${String(result._id).split(':')[0]}`);
  }
  return related.filter((doc) => !present.has(`${doc.type} ${doc.cmsDocId}`));
}
