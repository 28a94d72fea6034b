import type { Principal } from '../../core/principal.js';
import type { Caller } from './caller.js';
import type { DocumentCollaborators, DocumentOutput, ListResult, VersionOutput } from './collaborators.js';
import { pieceTypeOf } from './caller.js';
import { answerDependencies, type AnswerDependencies } from './answer-dependencies.js';
import { list } from './operations/list.js';
import { getOne } from './operations/get-one.js';
import { insert, type InsertOptions } from './operations/insert.js';
import { replace } from './operations/replace.js';
import { patch } from './operations/patch.js';
import { remove } from './operations/remove.js';
import { publish } from './operations/publish.js';
import { unpublish } from './operations/unpublish.js';
import { revertDraftToPublished } from './operations/revert-draft-to-published.js';
import { revertPublishedToPrevious } from './operations/revert-published-to-previous.js';
import { localize } from './operations/localize.js';
import { share } from './operations/share.js';
import { previewUrl, type PreviewUrl } from './operations/preview-url.js';
import { schedule } from './operations/schedule.js';
import { ScheduleRunner } from './schedule-runner.js';
import { Releases } from './releases.js';
import { shareLinks } from './operations/share-links.js';
import { revokeShareLink } from './operations/revoke-share-link.js';
import type { LinkOutput } from './preview-links.js';
import { locales } from './operations/locales.js';
import { readableTypeNames } from './operations/readable-type-names.js';
import { dashboard, type Dashboard } from './operations/dashboard.js';
import { history, type HistoryListResult } from './operations/history.js';
import { historyEntry } from './operations/history-entry.js';
import { restoreHistory } from './operations/restore-history.js';
import { IdempotentWrites } from './idempotency.js';
import { sync, type SyncAnswer } from './operations/sync.js';
import { reviewOperations, type ReviewOperations } from './operations/review.js';

type Body = Record<string, unknown>;
type Query = Readonly<Record<string, unknown>>;

/**
 * Every rule of the piece interface, one operation per endpoint: the HTTP layer makes one call
 * per request and knows none of the rules. Each method is the function of the same name in
 * `operations/<name>.ts` (`revertDraftToPublished`: `operations/revert-draft-to-published.ts`).
 */
export interface DocumentOperations {
  list(caller: Caller, typeName: string, query: Query): Promise<ListResult | { count: number }>;
  /** `route`: a type's name, or `@cms` for every type the caller may read. */
  sync(caller: Caller, route: string, query: Query): Promise<SyncAnswer>;
  getOne(caller: Caller, typeName: string, rawId: string, query?: Query): Promise<VersionOutput>;
  insert(caller: Caller, typeName: string, body: Body, options?: InsertOptions): Promise<VersionOutput>;
  replace(caller: Caller, typeName: string, rawId: string, body: Body): Promise<VersionOutput>;
  patch(caller: Caller, typeName: string, rawId: string, body: Body): Promise<VersionOutput>;
  remove(caller: Caller, typeName: string, rawId: string): Promise<void>;
  publish(caller: Caller, typeName: string, rawId: string): Promise<VersionOutput>;
  unpublish(caller: Caller, typeName: string, rawId: string): Promise<VersionOutput>;
  revertDraftToPublished(caller: Caller, typeName: string, rawId: string): Promise<VersionOutput | false>;
  revertPublishedToPrevious(caller: Caller, typeName: string, rawId: string): Promise<VersionOutput>;
  localize(caller: Caller, typeName: string, rawId: string, body: Body): Promise<VersionOutput>;
  share(caller: Caller, typeName: string, rawId: string, body: Body): Promise<VersionOutput>;
  previewUrl(caller: Caller, typeName: string, rawId: string, body: unknown): Promise<PreviewUrl>;
  schedule(caller: Caller, typeName: string, rawId: string, body: Body): Promise<VersionOutput>;
  /** Runs the schedules due now, on a timer of the server's (`schedule-runner.ts`); answers how many it claimed. */
  runDueSchedules(): Promise<number>;
  /** Releases (`releases.ts`): drafts of any types published together. */
  readonly releases: Releases;
  shareLinks(caller: Caller, typeName: string, rawId: string): Promise<{ results: LinkOutput[] }>;
  revokeShareLink(caller: Caller, typeName: string, rawId: string, linkId: string): Promise<{ revoked: string }>;
  locales(caller: Caller, typeName: string, rawId: string): Promise<{ results: { _id: string; cmsLocale: string }[] }>;
  history(caller: Caller, typeName: string, rawId: string, query: Query): Promise<HistoryListResult>;
  historyEntry(caller: Caller, typeName: string, rawId: string, entryId: string): Promise<DocumentOutput>;
  restoreHistory(caller: Caller, typeName: string, rawId: string, entryId: string, body: unknown): Promise<VersionOutput>;
  /** What a cache of the type's answers (list, get-one, locales) depends on: see `answer-dependencies.ts`. */
  answerDependencies(typeName: string): AnswerDependencies;
  readableTypeNames(principal: Principal): readonly string[];
  /** The signed-in user's home screen, every section in one call (`GET /api/v1/@cms/dashboard`). */
  dashboard(principal: Principal, query: Query): Promise<Dashboard>;
  /** Review stages, comments and approve links of drafts (`operations/review.ts`). */
  readonly review: ReviewOperations;
}

/** The operations over the collaborators the composition root built. */
export function documentOperations(c: DocumentCollaborators): DocumentOperations {
  const schedules = new ScheduleRunner(c);
  const releases = new Releases(c);
  // The writes a caller may send with an Idempotency-Key: each runs once per key, retries get its answer.
  const keyed = new IdempotentWrites({
    store: c.idempotencyKeys,
    transactions: c.transactions,
    readVersion: (caller, type, id) => getOne(c, caller, type, id),
    onFailure: c.onFollowUpFailure,
  });
  return {
    list: (caller, type, query) => list(c, caller, type, query),
    sync: (caller, route, query) => sync(c, caller, route, query),
    getOne: (caller, type, id, query) => getOne(c, caller, type, id, query),
    insert: (caller, type, body, options) => keyed.run(caller, type, () => insert(c, caller, type, body, options)),
    replace: (caller, type, id, body) => replace(c, caller, type, id, body),
    patch: (caller, type, id, body) => keyed.run(caller, type, () => patch(c, caller, type, id, body)),
    remove: (caller, type, id) => remove(c, caller, type, id),
    publish: (caller, type, id) => keyed.run(caller, type, () => publish(c, caller, type, id)),
    unpublish: (caller, type, id) => keyed.run(caller, type, () => unpublish(c, caller, type, id)),
    revertDraftToPublished: (caller, type, id) => revertDraftToPublished(c, caller, type, id),
    revertPublishedToPrevious: (caller, type, id) => revertPublishedToPrevious(c, caller, type, id),
    localize: (caller, type, id, body) => localize(c, caller, type, id, body),
    share: (caller, type, id, body) => share(c, caller, type, id, body),
    previewUrl: (caller, type, id, body) => previewUrl(c, caller, type, id, body),
    schedule: (caller, type, id, body) => schedule(c, caller, type, id, body),
    // The scheduler's timer runs the due releases too.
    runDueSchedules: async () => (await schedules.runDue()) + (await releases.runDue()),
    releases,
    shareLinks: (caller, type, id) => shareLinks(c, caller, type, id),
    revokeShareLink: (caller, type, id, linkId) => revokeShareLink(c, caller, type, id, linkId),
    locales: (caller, type, id) => locales(c, caller, type, id),
    history: (caller, type, id, query) => history(c, caller, type, id, query),
    historyEntry: (caller, type, id, entryId) => historyEntry(c, caller, type, id, entryId),
    restoreHistory: (caller, type, id, entryId, body) => restoreHistory(c, caller, type, id, entryId, body),
    answerDependencies: (type) => answerDependencies(c.config, c.fieldTypes, pieceTypeOf(c.config, type).name),
    readableTypeNames: readableTypeNames(c.config),
    dashboard: (principal, query) => dashboard(c, principal, query),
    review: reviewOperations(c),
  };
}
