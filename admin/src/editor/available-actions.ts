import type { PieceDocument, PieceTypeSchema } from '../api/types';

/** The workflow buttons the editor shows; one the role may not use is absent. */
export interface AvailableActions {
  readonly save: boolean;
  readonly publish: boolean;
  readonly unpublish: boolean;
  /** Discard draft changes: copy the published version back into the draft. */
  readonly discard: boolean;
  /** Undo publish: the previous published version becomes the published one again. */
  readonly undoPublish: boolean;
  readonly archive: boolean;
  readonly restore: boolean;
  readonly delete: boolean;
  /** Schedule a publish or an unpublish, or cancel one (publish permission). */
  readonly schedule: boolean;
}

export interface ActionContext {
  readonly type: PieceTypeSchema;
  /** undefined while the document is new (not saved yet). */
  readonly doc: Partial<PieceDocument> | undefined;
  readonly hasPublished: boolean;
  readonly hasPrevious: boolean;
}

/**
 * Follows the server's rules: the type's `can` (for the role) and the document's own `_edit`,
 * `_publish`, `_delete` flags. Whatever touches a published version needs `publish` as well.
 * Types that are not localized have no drafts: saving is all there is, besides deleting.
 */
export function availableActions({ type, doc, hasPublished, hasPrevious }: ActionContext): AvailableActions {
  const isNew = !doc?._id;
  const edit = isNew ? type.can.create : type.can.edit && doc?._edit === true;
  const publish = type.can.publish && (isNew || doc?._publish === true);
  const workflow = type.localized && !type.autopublish;
  const archived = doc?.archived === true;
  const touchesPublished = hasPublished ? publish : true;
  return {
    save: edit,
    publish: workflow && edit && publish,
    unpublish: workflow && !isNew && hasPublished && publish,
    discard: workflow && !isNew && hasPublished && doc?.modified === true && edit,
    undoPublish: workflow && !isNew && hasPrevious && publish,
    archive: !isNew && !archived && edit && touchesPublished,
    restore: !isNew && archived && edit && touchesPublished,
    delete: !isNew && type.can.delete && doc?._delete === true && touchesPublished,
    schedule: workflow && !isNew && publish,
  };
}
