import { listPieces } from '../api/pieces';
import type { FieldSchema, PieceDocument, Schema } from '../api/types';
import type { MediaPiece } from './media-api';

/** A document that uses a library piece, linkable to its editor. */
export interface Usage {
  readonly type: string;
  readonly typeLabel: string;
  readonly docId: string;
  readonly title: string;
  /** How it uses the piece: the relationship field's label, or "holds the same file". */
  readonly how: string;
}

/**
 * Where a library piece is used, as far as the list endpoint can answer:
 * - documents whose top-level relationship fields point at the piece (`_<name>[]=<cmsDocId>`,
 *   one request per such field);
 * - documents holding the piece's file in an attachment field: the attachment's `docIds` name
 *   them (`<cmsDocId>:<locale>:<mode>`), looked up with `_ids[]` in each type that has attachment
 *   fields.
 * The server indexes only top-level fields, so image widgets and inline images inside areas are
 * not found (the screen says so). All requests start together.
 */
export async function findUsages(piece: MediaPiece, schema: Schema, locale: string): Promise<Usage[]> {
  const holders = heldBy(piece);
  const requests: Promise<Usage[]>[] = [];
  for (const [type, typeSchema] of Object.entries(schema.types)) {
    if (!typeSchema.can.viewDrafts) continue;
    const scope = { locale, mode: 'draft' as const };
    for (const field of typeSchema.fields) {
      if (field.type !== 'relationship' || field.withType !== piece.type) continue;
      const filter = `_${field.name.replace(/^_/, '')}`;
      requests.push(
        listPieces(type, scope, { [filter]: [piece.cmsDocId], perPage: 50, project: { title: 1 } }).then((answer) =>
          answer.results.map((doc) => usage(type, typeSchema.label, doc, field.label)),
        ),
      );
    }
    if (holders.length && hasAttachmentField(typeSchema.fields, schema)) {
      requests.push(
        listPieces(type, scope, { _ids: holders, perPage: 50, project: { title: 1 } }).then((answer) =>
          answer.results.map((doc) => usage(type, typeSchema.label, doc, 'holds the same file')),
        ),
      );
    }
  }
  return (await Promise.all(requests)).flat();
}

/** A projected list answer keeps `_id` but not `cmsDocId`: the id's first part is the document's. */
function usage(type: string, typeLabel: string, doc: PieceDocument, how: string): Usage {
  return { type, typeLabel, docId: doc._id.split(':')[0]!, title: doc.title, how };
}

/** The other documents holding the piece's attachment (its own versions left out), by cmsDocId. */
function heldBy(piece: MediaPiece): string[] {
  const ids = new Set((piece.attachment.docIds ?? []).map((versionId) => versionId.split(':')[0]!));
  ids.delete(piece.cmsDocId);
  return [...ids];
}

function hasAttachmentField(fields: readonly FieldSchema[], schema: Schema, seen = new Set<string>()): boolean {
  return fields.some((field) => {
    if (field.type === 'attachment') return true;
    if (field.fields && hasAttachmentField(field.fields, schema, seen)) return true;
    // An area's widgets may hold attachment fields; each widget type is looked at once.
    for (const widget of Object.keys(field.options?.widgets ?? {})) {
      if (seen.has(widget)) continue;
      seen.add(widget);
      if (hasAttachmentField(schema.widgets[widget]?.fields ?? [], schema, seen)) return true;
    }
    return false;
  });
}

/** How many versions (locales and modes) hold the attachment, for the count beside the list. */
export function versionCount(piece: MediaPiece): number {
  return piece.attachment.docIds?.length ?? 0;
}
