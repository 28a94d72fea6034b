import type { Role } from '../../core/principal.js';
import { roles } from '../../core/principal.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject, joinPath } from '../../config/schema-check.js';

/** One review stage: its name, and the role moving a draft into it needs (null: the default). */
export interface ReviewStage {
  readonly name: string;
  readonly role: Role | null;
}

/**
 * `options.review` of a piece type, checked (issue 38): its drafts pass through `stages` in
 * order, and only a draft in `publishFrom` (or a later stage) may be published.
 */
export interface ReviewOption {
  readonly stages: readonly ReviewStage[];
  readonly publishFrom: string;
  /** The index of `publishFrom` in `stages`. */
  readonly publishIndex: number;
}

export const defaultReviewStages = ['draft', 'in review', 'approved'] as const;
const maxStages = 20;
const maxStageName = 50;

/** `options.review` as configured (`true`, or `{ stages, publishFrom }`), checked; null when the type has none. */
export function reviewOptionOf(configured: unknown, path: string, options: { autopublish: boolean; localized: boolean }): ReviewOption | null {
  if (configured === undefined || configured === false) return null;
  const { autopublish } = options;
  if (!options.localized) throw new ConfigError(path, 'needs a type with drafts: this one sets localized: false');
  if (autopublish) throw new ConfigError(path, 'cannot go with autopublish: true, which publishes every save without review');
  if (configured === true) return { stages: defaultReviewStages.map((name) => ({ name, role: null })), publishFrom: 'approved', publishIndex: 2 };
  if (!isPlainObject(configured)) throw new ConfigError(path, 'must be true or an object { stages, publishFrom }');
  const { stages: rawStages, publishFrom, ...others } = configured;
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) throw new ConfigError(joinPath(path, unknown), 'is not an option of review: it takes { stages, publishFrom }');
  if (!Array.isArray(rawStages) || rawStages.length < 2 || rawStages.length > maxStages) {
    throw new ConfigError(joinPath(path, 'stages'), `must be a list of 2 to ${maxStages} stages (names, or { name, role })`);
  }
  const stages = rawStages.map((stage, index) => stageOf(stage, joinPath(path, `stages.${index}`)));
  const names = new Set(stages.map((stage) => stage.name));
  if (names.size !== stages.length) throw new ConfigError(joinPath(path, 'stages'), 'must not name a stage twice');
  if (typeof publishFrom !== 'string' || !names.has(publishFrom)) {
    throw new ConfigError(joinPath(path, 'publishFrom'), `must name one of the stages (${[...names].join(', ')})`);
  }
  const publishIndex = stages.findIndex((stage) => stage.name === publishFrom);
  if (publishIndex === 0) throw new ConfigError(joinPath(path, 'publishFrom'), 'must not be the first stage: every draft starts there');
  return { stages, publishFrom, publishIndex };
}

function stageOf(stage: unknown, path: string): ReviewStage {
  const { name, role, ...others } = typeof stage === 'string' ? { name: stage } : isPlainObject(stage) ? stage : { name: undefined };
  if (Object.keys(others).length > 0) throw new ConfigError(path, 'must be a stage name or { name, role }');
  if (typeof name !== 'string' || name.trim() === '' || name.length > maxStageName) {
    throw new ConfigError(path, `must be a stage name (1 to ${maxStageName} characters) or { name, role }`);
  }
  if (role !== undefined && !roles.includes(role as Role)) throw new ConfigError(joinPath(path, 'role'), `must be one of ${roles.join(', ')}`);
  return { name, role: (role as Role | undefined) ?? null };
}
