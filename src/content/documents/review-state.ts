import { createHash } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { ReviewOption } from '../types/review-option.js';
import type { SchemaValueReader } from './schema-value-reader.js';
import { roleRank } from '../../core/principal.js';
import { canPublish, canWrite, requireDrafts } from '../access/permissions.js';
import { ConflictError, InvalidRequestError } from '../../errors/app-error.js';
import type { FilterCondition } from '../../storage/storage-adapter.js';
import { refusal } from '../../core/refusal.js';

/*
 * Review stages (issue 38): a type with `options.review` keeps its draft's stage on the draft
 * (`cmsReview`); a draft without one is in the first stage. Only a draft in `publishFrom` (or a
 * later stage) is published; a content change to such a draft sends it back to the stage before.
 */

/** The index key of a reviewed draft's stage (the indexer's `ownKeys.reviewStage`). */
export const reviewStageKey = '@reviewStage';
/** The index key of a reviewed draft's reviewers (the indexer's `ownKeys.reviewer`). */
export const reviewerKey = '@reviewer';

/** The property of a draft holding its review. */
export const reviewProperty = 'cmsReview';

export interface DraftReview {
  readonly stage: string;
  readonly reviewers: readonly string[];
  readonly updatedAt: string | null;
}

/** The draft's review as stored, or where a draft without one stands: the first stage. */
export function reviewOf(review: ReviewOption, draft: StoredDocument): DraftReview {
  const stored = draft[reviewProperty] as Partial<DraftReview> | undefined;
  const known = typeof stored?.stage === 'string' && review.stages.some((stage) => stage.name === stored.stage);
  return {
    stage: known ? stored!.stage! : review.stages[0]!.name,
    reviewers: Array.isArray(stored?.reviewers) ? stored.reviewers.filter((id) => typeof id === 'string') : [],
    updatedAt: typeof stored?.updatedAt === 'string' ? stored.updatedAt : null,
  };
}

export function stageIndex(review: ReviewOption, stage: string): number {
  return review.stages.findIndex((candidate) => candidate.name === stage);
}

/** Whether the draft may be published: in publishFrom or later. */
export function reviewed(review: ReviewOption, draft: StoredDocument): boolean {
  return stageIndex(review, reviewOf(review, draft).stage) >= review.publishIndex;
}

/** Refuses (409) publishing a draft that has not reached publishFrom: every publish path passes here (publishDraft). */
export function assertReviewed(type: SanitizedPieceType, draft: StoredDocument): void {
  const review = type.options.review;
  if (!review || reviewed(review, draft)) return;
  const { stage } = reviewOf(review, draft);
  throw new ConflictError(`This draft is in the review stage "${stage}": it may be published from "${review.publishFrom}" only`, {
    stage,
    required: review.publishFrom,
  });
}

/** Refuses (403) moving a draft into `stage` to a caller whose role is below what the stage asks. */
export function requireStageRole(principal: Principal, type: SanitizedPieceType, review: ReviewOption, stage: string): void {
  const index = stageIndex(review, stage);
  const { role } = review.stages[index]!;
  const action = `Moving a draft of ${type.name} into "${stage}"`;
  if (role !== null) {
    if (roleRank(principal.role) < roleRank(role)) throw refusal(principal, role, action);
    return;
  }
  if (index >= review.publishIndex ? !canPublish(principal, type) : !canWrite(principal, type, 'draft')) {
    throw refusal(principal, index >= review.publishIndex ? type.options.publishRole : type.options.editRole, action);
  }
}

/** Sets the draft's review (in the caller's transaction; the caller saves the draft). */
export function setReview(draft: StoredDocument, next: DraftReview): void {
  draft[reviewProperty] = { stage: next.stage, reviewers: [...next.reviewers], updatedAt: next.updatedAt };
}

/**
 * After a content change of `draft` (before: `earlier`): a draft that had reached publishFrom
 * goes back to the stage before it, in the write's transaction. Answers whether it went back.
 */
export function sendBackIfChanged(type: SanitizedPieceType, values: SchemaValueReader, earlier: StoredDocument, draft: StoredDocument, now: string): boolean {
  const review = type.options.review;
  if (!review || !reviewed(review, earlier) || !values.isModified(type, draft, earlier)) return false;
  setReview(draft, { ...reviewOf(review, draft), stage: review.stages[review.publishIndex - 1]!.name, updatedAt: now });
  return true;
}

/** What an approve link is bound to: the draft's content (its schema values). */
export function contentDigestOf(type: SanitizedPieceType, values: SchemaValueReader, draft: StoredDocument): string {
  const content = values.schemaValues(type, draft);
  return createHash('sha256').update(JSON.stringify(content)).digest('base64url');
}

/** `?reviewStage=<stage>`: drafts in that review stage, for who may read drafts; a stage the type lacks is a 400. */
export function reviewStageCondition(principal: Principal, type: SanitizedPieceType, raw: unknown): FilterCondition[] {
  if (raw === undefined) return [];
  requireDrafts(principal, type);
  const review = type.options.review;
  if (!review) throw new InvalidRequestError(`reviewStage: ${type.name} has no review stages`, { parameter: 'reviewStage' });
  const asked = Array.isArray(raw) ? raw : [raw];
  const names = review.stages.map((stage) => stage.name);
  for (const stage of asked) {
    if (typeof stage !== 'string' || !names.includes(stage)) {
      throw new InvalidRequestError(`reviewStage: must be one of ${names.join(', ')}`, { parameter: 'reviewStage', stages: names });
    }
  }
  return [{ key: reviewStageKey, op: 'in', values: asked as string[] }];
}
