import { listPieces } from '../api/pieces';
import type { FieldSchema, PieceDocument, Schema } from '../api/types';
import type { MediaPiece } from './media-api';

/** A document that uses a library piece, linkable to its editor. */
export interface Usage {
  readonly type: string;
  readonly typeLabel: string;
  readonly docId: string;
  readonly title: string;
  /** How it uses the piece: "shows it" (through any field, rich text included), or "holds the same file". */
  /** How it uses the piece; its words are `media.usage.<how>` in the catalogues. */
  readonly how: 'shows' | 'holds';
}

/** At most this many documents are looked up per type, as one page of a list. */
const perType = 50;

/**
 * Where a library piece is used, in the piece's locale, as far as the caller may read:
 * - the documents whose draft shows it: the piece's `relatedReverseIds` name them, whatever holds
 *   it (a relationship at any depth, an image widget in an area, an image inline in rich text);
 *   they are looked up with `_ids[]` in each type whose schema can show the piece;
 * - documents holding the piece's file in an attachment field: the attachment's `docIds` name
 *   them (`<cmsDocId>:<locale>:<mode>`), looked up with `_ids[]` in each type that has attachment fields.
 * All requests start together; `more` counts the documents named past `perType` ids.
 */
export async function findUsages(piece: MediaPiece, schema: Schema, locale: string): Promise<{ usages: Usage[]; more: number }> {
  const holders = heldBy(piece);
  const showing = (piece.relatedReverseIds ?? []).filter((id) => id !== piece.cmsDocId);
  const requests: Promise<Usage[]>[] = [];
  const scope = { locale, mode: 'draft' as const };
  const lookUp = (type: string, ids: readonly string[], how: Usage['how']) =>
    listPieces(type, scope, { _ids: ids.slice(0, perType), perPage: perType, project: { title: 1 } }).then((answer) =>
      answer.results.map((doc) => usage(type, schema.types[type]!.label, doc, how)),
    );
  for (const [type, typeSchema] of Object.entries(schema.types)) {
    if (!typeSchema.can.viewDrafts) continue;
    if (showing.length && canShow(typeSchema.fields, schema, piece.type)) requests.push(lookUp(type, showing, 'shows'));
    if (holders.length && holdsField(typeSchema.fields, schema, (field) => field.type === 'attachment')) requests.push(lookUp(type, holders, 'holds'));
  }
  return { usages: (await Promise.all(requests)).flat(), more: Math.max(0, showing.length - perType) };
}

/** A projected list answer keeps `_id` but not `cmsDocId`: the id's first part is the document's. */
function usage(type: string, typeLabel: string, doc: PieceDocument, how: Usage['how']): Usage {
  return { type, typeLabel, docId: doc._id.split(':')[0]!, title: doc.title, how };
}

/** The other documents holding the piece's attachment (its own versions left out), by cmsDocId. */
function heldBy(piece: MediaPiece): string[] {
  const ids = new Set((piece.attachment.docIds ?? []).map((versionId) => versionId.split(':')[0]!));
  ids.delete(piece.cmsDocId);
  return [...ids];
}

/** Whether documents of these fields can show a piece of `pieceType`: a relationship to it, or (images) rich text. */
function canShow(fields: readonly FieldSchema[], schema: Schema, pieceType: string): boolean {
  return holdsField(fields, schema, (field, widget) =>
    (field.type === 'relationship' && field.withType === pieceType) || (pieceType === imageType && widget === richTextWidget),
  );
}

const imageType = '@cms/image';
const richTextWidget = '@cms/rich-text';

/** Whether a field at any depth (nested fields, the widgets of areas) passes `test`, which also sees each widget type an area allows. */
function holdsField(
  fields: readonly FieldSchema[],
  schema: Schema,
  test: (field: FieldSchema, widget?: string) => boolean,
  seen = new Set<string>(),
): boolean {
  return fields.some((field) => {
    if (test(field)) return true;
    if (field.fields && holdsField(field.fields, schema, test, seen)) return true;
    // An area's widgets may hold such fields; each widget type is looked at once.
    for (const widget of Object.keys(field.options?.widgets ?? {})) {
      if (test(field, widget)) return true;
      if (seen.has(widget)) continue;
      seen.add(widget);
      if (holdsField(schema.widgets[widget]?.fields ?? [], schema, test, seen)) return true;
    }
    return false;
  });
}

/** How many versions (locales and modes) hold the attachment, for the count beside the list. */
export function versionCount(piece: MediaPiece): number {
  return piece.attachment.docIds?.length ?? 0;
}
