import { randomBytes } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { DocumentOutput } from '../collaborators.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import type { ReviewOption } from '../../types/review-option.js';
import { ConflictError, ExpiredError, InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { requirePublish, requireWrite } from '../../access/permissions.js';
import { pieceTypeOf, versionId } from '../caller.js';
import { anonymous, userTypeName } from '../../../core/principal.js';
import { parseDocumentId } from '../../../core/ids.js';
import { touch, updatedBy } from '../new-version.js';
import { requireVersion } from '../version-reads.js';
import { linkDigest, checkedExpiresIn } from '../preview-links.js';
import { contentDigestOf, requireStageRole, reviewOf, setReview, stageIndex } from '../review-state.js';

import { bodyOf, reviewTarget, type ReviewDeps } from './review-input.js';

/**
 * POST …/:_id/review `{ stage?, reviewers? }`: moves the draft into `stage` (the stage's role, or
 * edit permission before publishFrom and publish permission from it on) and assigns reviewers
 * (edit permission; user ids). Answers the draft.
 */
export async function moveReview(deps: ReviewDeps, caller: Caller, typeName: string, rawId: string, raw: unknown): Promise<DocumentOutput> {
  const { principal } = caller;
  const { type, review, target } = reviewTarget(deps, caller, typeName, rawId);
  requireWrite(principal, type, 'draft');
  const body = bodyOf(raw, ['stage', 'reviewers']);
  if (body.stage === undefined && body.reviewers === undefined) throw new InvalidRequestError('The body names no stage and no reviewers');
  const stage = body.stage === undefined ? undefined : checkedStage(review, body.stage);
  const reviewers = body.reviewers === undefined ? undefined : checkedReviewers(body.reviewers, deps.config.limits.reviewReviewers);
  if (stage !== undefined) requireStageRole(principal, type, review, stage);
  const draft = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    if (reviewers) await requireUsers(tx, reviewers);
    const before = reviewOf(review, draft);
    const now = new Date().toISOString();
    setReview(draft, { stage: stage ?? before.stage, reviewers: reviewers ?? before.reviewers, updatedAt: now });
    touch(draft, now, principal);
    await deps.versions.update(tx, draft);
    await deps.changes.recordReview(tx, 'review.stage', draft, caller, { from: before.stage, stage: stage ?? before.stage, reviewers: reviewers ?? before.reviewers });
    return draft;
  });
  return (await deps.presenter.presentOne(draft, type, principal)).document;
}

function checkedStage(review: ReviewOption, stage: unknown): string {
  if (typeof stage !== 'string' || stageIndex(review, stage) < 0) {
    const names = review.stages.map((candidate) => candidate.name);
    throw new InvalidRequestError(`stage: must be one of ${names.join(', ')}`, { path: 'stage', stages: names });
  }
  return stage;
}

function checkedReviewers(reviewers: unknown, max: number): string[] {
  if (!Array.isArray(reviewers) || reviewers.length > max || reviewers.some((id) => typeof id !== 'string' || id === '' || id.length > 100)) {
    throw new InvalidRequestError(`reviewers: must be a list of at most ${max} user ids`, { path: 'reviewers', max });
  }
  return [...new Set(reviewers as string[])];
}

async function requireUsers(tx: StorageSession, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set((await tx.documents.find({ type: userTypeName, docIds: [...ids] })).map((user) => user.cmsDocId));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new InvalidRequestError(`reviewers: no user has the id ${missing}`, { path: 'reviewers' });
}

/** The answer of an approve link made: the key is shown this once. */
export interface ReviewLink {
  readonly url: string;
  readonly key: string;
  readonly expiresAt: string;
}

export const approvePath = '/api/v1/@cms/review/approve';

/**
 * POST …/:_id/review-link `{ expiresIn? }` (publish permission): a link an anonymous approver
 * opens to move the draft to publishFrom, once, while the draft's content is what it is now.
 */
export async function makeReviewLink(deps: ReviewDeps, caller: Caller, typeName: string, rawId: string, raw: unknown): Promise<ReviewLink> {
  const { principal } = caller;
  const { limits } = deps.config;
  const { type, target } = reviewTarget(deps, caller, typeName, rawId);
  requirePublish(principal, type);
  const body = bodyOf(raw ?? {}, ['expiresIn']);
  const lifetime = body.expiresIn === undefined ? Math.min(limits.reviewLinkLifetime, limits.shareLinkMaxLifetime) : checkedExpiresIn(body.expiresIn, limits);
  const key = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + lifetime * 1000).toISOString();
  await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const draft = await requireVersion(tx, type, versionId(target, 'draft'));
    await tx.review.insertLink({
      digest: linkDigest(key),
      versionId: draft._id,
      contentDigest: contentDigestOf(type, deps.values, draft),
      createdAt: now.toISOString(),
      createdBy: JSON.stringify(updatedBy(principal)),
      expiresAt,
      usedAt: null,
    });
  });
  const query = new URLSearchParams({ type: type.name, id: versionId(target, 'draft'), key });
  return { url: `${approvePath}?${query}`, key, expiresAt };
}

/**
 * GET or POST /api/v1/@cms/review/approve `{ type, key }`, by anyone holding the link: moves the
 * draft to publishFrom. An unknown key is a 404; an expired one a 410; a used one, or one whose
 * draft changed since it was made, a 409. Nothing changes then.
 */
export async function approveByLink(deps: ReviewDeps, raw: Readonly<Record<string, unknown>>): Promise<{ approved: true; stage: string }> {
  const { type: typeName, id, key } = raw;
  if (typeof typeName !== 'string' || typeof id !== 'string' || typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new InvalidRequestError('The approve link needs its type, id and key');
  }
  const type = deps.config.pieceTypes.get(typeName);
  const review = type?.options.review;
  if (!type || !review) throw new NotFoundError('This approve link opens nothing');
  const digest = linkDigest(key);
  const caller = { principal: anonymous } as Caller;
  const { docId, locale, mode } = parseDocumentId(id);
  if (mode !== 'draft' || !locale || !deps.config.locales.has(locale)) throw new NotFoundError('This approve link opens nothing');
  await deps.transactions.runOnDocument({ caller, type: pieceTypeOf(deps.config, type.name), set: { docId, locale } }, async (tx) => {
    const current = await tx.review.findLink(digest);
    if (!current || current.versionId !== id) throw new NotFoundError('This approve link opens nothing');
    const now = new Date().toISOString();
    if (current.expiresAt <= now) throw new ExpiredError('This approve link has expired: ask for a new one');
    if (current.usedAt !== null) throw new ConflictError('This approve link was used already');
    const draft: StoredDocument = await requireVersion(tx, type, id);
    if (contentDigestOf(type, deps.values, draft) !== current.contentDigest) {
      throw new ConflictError('The draft changed since this approve link was made: ask for a new one');
    }
    if (!(await tx.review.useLink(digest, now))) throw new ConflictError('This approve link was used already');
    const before = reviewOf(review, draft);
    setReview(draft, { ...before, stage: review.publishFrom, updatedAt: now });
    draft.updatedAt = now;
    await deps.versions.update(tx, draft);
    await deps.changes.recordReview(tx, 'review.stage', draft, caller, { from: before.stage, stage: review.publishFrom, byLink: true });
  });
  return { approved: true, stage: review.publishFrom };
}

import { addComment, listComments, resolveComment, type CommentOutput } from './review-comments.js';

/** The review routes' operations (document-operations.ts holds them as `review`). */
export interface ReviewOperations {
  move(caller: Caller, typeName: string, rawId: string, body: unknown): Promise<DocumentOutput>;
  addComment(caller: Caller, typeName: string, rawId: string, body: unknown): Promise<CommentOutput>;
  listComments(caller: Caller, typeName: string, rawId: string): Promise<{ results: CommentOutput[] }>;
  resolveComment(caller: Caller, typeName: string, rawId: string, commentId: string, body: unknown): Promise<CommentOutput>;
  makeLink(caller: Caller, typeName: string, rawId: string, body: unknown): Promise<ReviewLink>;
  approve(query: Readonly<Record<string, unknown>>): Promise<{ approved: true; stage: string }>;
}

export function reviewOperations(c: ReviewDeps): ReviewOperations {
  return {
    move: (caller, type, id, body) => moveReview(c, caller, type, id, body),
    addComment: (caller, type, id, body) => addComment(c, caller, type, id, body),
    listComments: (caller, type, id) => listComments(c, caller, type, id),
    resolveComment: (caller, type, id, commentId, body) => resolveComment(c, caller, type, id, commentId, body),
    makeLink: (caller, type, id, body) => makeReviewLink(c, caller, type, id, body),
    approve: (query) => approveByLink(c, query),
  };
}
