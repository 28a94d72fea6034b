import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { ReviewOption } from '../../types/review-option.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { localizedTarget, type SetTarget } from '../caller.js';
import { isPlainObject } from '../../../config/schema-check.js';

export type ReviewDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

/** The type's review and the draft's document set; a type without review stages is a 404. */
export function reviewTarget(deps: Pick<ReviewDeps, 'config'>, caller: Caller, typeName: string, rawId: string): { type: SanitizedPieceType; review: ReviewOption; target: SetTarget } {
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  const review = type.options.review;
  if (!review) throw new NotFoundError(`${type.name} has no review stages: its type sets no options.review`);
  return { type, review, target };
}

export function bodyOf(body: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(body)) throw new InvalidRequestError(`The body must be an object { ${keys.join(', ')} }`);
  const unknown = Object.keys(body).find((key) => !keys.includes(key));
  if (unknown !== undefined) throw new InvalidRequestError(`Unknown property ${unknown}: the body is { ${keys.join(', ')} }`, { path: unknown });
  return body;
}
