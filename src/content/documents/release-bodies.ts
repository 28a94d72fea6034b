import type { StoredRelease } from '../../storage/storage-adapter.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { parseScheduledBy } from './schedules.js';

/* What the release routes take (checked: every input is hostile) and answer. */

export const titleMax = 200;
export const idMax = 200;
type Body = unknown;

/** A release as the API answers it. */
export interface ReleaseOutput {
  readonly _id: string;
  readonly title: string;
  readonly publishAt: string | null;
  readonly state: StoredRelease['state'];
  readonly createdAt: string;
  readonly createdBy: ByOutput | null;
  readonly updatedAt: string;
  readonly publishedAt: string | null;
  readonly publishedBy: ByOutput | null;
  readonly failure: string | null;
}

/** One draft of a release and how it stands: `modified` (the draft differs from the published version or was never published), `published`, `missing` (the draft is gone). */
export interface ReleaseDocumentOutput {
  readonly _id: string;
  readonly type: string;
  readonly title: string | null;
  readonly state: 'modified' | 'published' | 'missing';
}

interface ByOutput { readonly _id: string | null; readonly title: string; readonly username: string | null }

/** One document a precheck found would fail, with the error the publish would answer. */
export interface PrecheckFailure { readonly _id: string; readonly type: string; readonly status: string; readonly name: string; readonly message: string }

function plainObject(body: Body): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError('The body is a JSON object');
  return body as Record<string, unknown>;
}

/** `{ title, publishAt }` checked: a title of 1 to 200 characters, a publishAt ISO time or null; nothing else. */
export function releaseFields(body: Body, creating: boolean): { title?: string; publishAt?: string | null } {
  const object = plainObject(body);
  const unknown = Object.keys(object).filter((key) => key !== 'title' && key !== 'publishAt');
  if (unknown.length > 0) throw new InvalidRequestError(`Unknown properties: ${unknown.slice(0, 5).join(', ')}`, { allowed: ['title', 'publishAt'] });
  const out: { title?: string; publishAt?: string | null } = {};
  if (object.title !== undefined || creating) {
    const title = object.title;
    if (typeof title !== 'string' || title.trim() === '' || title.length > titleMax) throw new InvalidRequestError(`title is text of 1 to ${titleMax} characters`);
    out.title = title.trim();
  }
  if (object.publishAt !== undefined) {
    const at = object.publishAt;
    if (at === null) out.publishAt = null;
    else if (typeof at !== 'string' || at.length > 40 || Number.isNaN(Date.parse(at))) throw new InvalidRequestError('publishAt is an ISO 8601 time, or null');
    else out.publishAt = new Date(at).toISOString();
  }
  return out;
}

/** `{ add, remove }`: arrays of draft `_id`s (`<cmsDocId>:<locale>:draft`), together at most `perCall`. */
export function documentChanges(body: Body, perCall: number): { add: string[]; remove: string[] } {
  const object = plainObject(body);
  const unknown = Object.keys(object).filter((key) => key !== 'add' && key !== 'remove');
  if (unknown.length > 0) throw new InvalidRequestError(`Unknown properties: ${unknown.slice(0, 5).join(', ')}`, { allowed: ['add', 'remove'] });
  const list = (name: 'add' | 'remove'): string[] => {
    const value = object[name] ?? [];
    if (!Array.isArray(value)) throw new InvalidRequestError(`${name} is an array of draft ids`);
    if (value.length > perCall) throw new InvalidRequestError(`At most ${perCall} ids per call (limits.releaseDocumentsPerCall)`, { max: perCall });
    for (const id of value) {
      if (typeof id !== 'string' || id.length > idMax || !/^[^:]+:[^:]+:draft$/.test(id)) throw new InvalidRequestError(`${name}: each id is a draft's _id (<cmsDocId>:<locale>:draft)`);
    }
    return [...new Set(value as string[])];
  };
  const add = list('add');
  const remove = list('remove');
  if (add.length + remove.length > perCall) throw new InvalidRequestError(`At most ${perCall} ids per call (limits.releaseDocumentsPerCall)`, { max: perCall });
  return { add, remove };
}

function byOutput(text: string | null): ByOutput | null {
  const by = text === null ? null : parseScheduledBy(text);
  return by ? { _id: by.userId, title: by.title, username: by.username } : null;
}

export function releaseOutput(release: StoredRelease): ReleaseOutput {
  return {
    _id: release.id, title: release.title, publishAt: release.publishAt, state: release.state, createdAt: release.createdAt,
    createdBy: byOutput(release.createdBy), updatedAt: release.updatedAt, publishedAt: release.publishedAt,
    publishedBy: byOutput(release.publishedBy), failure: release.failure,
  };
}
