import type { Caller } from '../caller.js';
import type { StoredReviewComment } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { versionId } from '../caller.js';
import { newId } from '../../../core/ids.js';
import { updatedBy } from '../new-version.js';
import { requireVersion } from '../version-reads.js';
import { bodyOf, reviewTarget, type ReviewDeps } from './review-input.js';

/** A comment as answered: who wrote it parsed. */
export interface CommentOutput {
  readonly _id: string;
  readonly field: string | null;
  readonly body: string;
  readonly createdAt: string;
  readonly createdBy: unknown;
  readonly resolved: boolean;
  readonly resolvedAt: string | null;
}

function commentOutput(comment: StoredReviewComment): CommentOutput {
  const { id, field, body, createdAt, createdBy, resolved, resolvedAt } = comment;
  return { _id: id, field, body, createdAt, createdBy: JSON.parse(createdBy) as unknown, resolved, resolvedAt };
}

/** POST …/:_id/comments `{ body, field? }`: a comment on the draft, or on one of its fields (a field path of the type). */
export async function addComment(deps: ReviewDeps, caller: Caller, typeName: string, rawId: string, raw: unknown): Promise<CommentOutput> {
  const { principal } = caller;
  const { type, target } = reviewTarget(deps, caller, typeName, rawId);
  requireWrite(principal, type, 'draft');
  const body = bodyOf(raw, ['body', 'field']);
  const max = deps.config.limits.reviewCommentLength;
  if (typeof body.body !== 'string' || body.body.trim() === '' || body.body.length > max) {
    throw new InvalidRequestError(`body: must be a text of 1 to ${max} characters`, { path: 'body', max });
  }
  const field = body.field === undefined || body.field === null ? null : checkedFieldPath(type, body.field);
  const text = body.body;
  return deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    const most = deps.config.limits.reviewCommentsPerDraft;
    if ((await tx.review.countComments(draft._id)) >= most) throw new ConflictError(`This draft already has ${most} comments`, { max: most });
    const comment: StoredReviewComment = {
      id: newId(),
      versionId: draft._id,
      field,
      body: text,
      createdAt: new Date().toISOString(),
      createdBy: JSON.stringify(updatedBy(principal)),
      resolved: false,
      resolvedAt: null,
    };
    await tx.review.insertComment(comment);
    await deps.changes.recordReview(tx, 'review.comment', draft, caller, { commentId: comment.id, field, body: text });
    return commentOutput(comment);
  });
}

const segmentPattern = /^[A-Za-z0-9_$-]{1,100}$/;

/** A field path (`title`, `body.0.text`): its first segment a field of the type, each a plain name or index. */
function checkedFieldPath(type: SanitizedPieceType, path: unknown): string {
  const segments = typeof path === 'string' && path.length <= 500 ? path.split('.') : [];
  const safe = segments.every((segment) => segmentPattern.test(segment) && segment !== '__proto__' && segment !== 'constructor' && segment !== 'prototype');
  if (segments.length === 0 || !safe || !type.fieldsByName.has(segments[0]!)) {
    throw new InvalidRequestError(`field: must be a field path of ${type.name}`, { path: 'field' });
  }
  return path as string;
}

/** GET …/:_id/comments: the draft's comments, oldest first. */
export async function listComments(deps: ReviewDeps, caller: Caller, typeName: string, rawId: string): Promise<{ results: CommentOutput[] }> {
  const { type, target } = reviewTarget(deps, caller, typeName, rawId);
  requireWrite(caller.principal, type, 'draft');
  return deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    const comments = await tx.review.listComments(draft._id, deps.config.limits.reviewCommentsPerDraft);
    return { results: comments.map(commentOutput) };
  });
}

/** PATCH …/:_id/comments/:commentId `{ resolved }`. */
export async function resolveComment(deps: ReviewDeps, caller: Caller, typeName: string, rawId: string, commentId: string, raw: unknown): Promise<CommentOutput> {
  const { type, target } = reviewTarget(deps, caller, typeName, rawId);
  requireWrite(caller.principal, type, 'draft');
  const body = bodyOf(raw, ['resolved']);
  if (typeof body.resolved !== 'boolean') throw new InvalidRequestError('resolved: must be true or false', { path: 'resolved' });
  const resolved = body.resolved;
  return deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    const comment = await tx.review.resolveComment(draft._id, commentId, resolved, new Date().toISOString());
    if (!comment) throw new NotFoundError('No such comment on this draft');
    await deps.changes.recordReview(tx, 'review.comment', draft, caller, { commentId, resolved });
    return commentOutput(comment);
  });
}

