import type { AppConfig } from '../../app-config.js';
import type { Principal } from '../../../core/principal.js';
import type { FilterCondition, Schedule, ScheduleAction } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput } from '../collaborators.js';
import { ForbiddenError, InvalidRequestError } from '../../../errors/app-error.js';
import { refusal } from '../../../core/refusal.js';
import { roleRank } from '../../../core/principal.js';
import { canAccessApi, canPublish, canReadType, canViewDrafts, canWrite } from '../../access/permissions.js';
import { builtinPieceTypeNames } from '../../types/builtin-types.js';
import { canSortOn } from '../../query/list-query.js';
import { splitLocale } from '../caller.js';
import { firstResults } from './list.js';
import { ownKeys } from '../../indexing/document-indexer.js';

type DashboardDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'queries' | 'indexer' | 'presenter' | 'areas' | 'schedules'>;

/** A pending scheduled publish or unpublish, with the draft it acts on as the list shows it. */
export interface ScheduledItem {
  readonly action: ScheduleAction;
  readonly at: string;
  readonly document: DocumentOutput;
}

/**
 * The admin's home screen (issue 35): each section at most `limits.dashboardItems` entries, of
 * the configured piece types (users and media have screens of their own). Documents are as the
 * list shows them to the caller, reduced to `shownProperties`. Documents in review (issue 38)
 * will be a section of their own here, read as the others are.
 */
export interface Dashboard {
  readonly locale: string;
  /** Drafts the caller changed last that hold unpublished changes, newest first. */
  readonly myDrafts: { readonly results: DocumentOutput[] };
  /** The latest changed documents (drafts where the caller may read them), newest first. */
  readonly recentlyChanged: { readonly results: DocumentOutput[] };
  /** Pending schedules, soonest first. */
  readonly scheduled: { readonly results: ScheduledItem[] };
  /** Drafts in review (after the first stage, before publishFrom) the caller reviews, or, for publishers, that no one was assigned. */
  readonly needsMyReview: { readonly results: DocumentOutput[] };
}

/** What each listed document keeps (`_id` and `type` always). */
const shownProperties = ['title', 'cmsDocId', 'cmsLocale', 'updatedAt', 'updatedBy', 'modified', 'lastPublishedAt'];
const project = Object.fromEntries(shownProperties.map((name) => [name, '1']));
const newestFirst = { updatedAt: '-1' };

/**
 * GET /api/v1/@cms/dashboard: one list read per section and piece type, each through the list
 * operation with the caller's rights and projection, never a query per document.
 */
export async function dashboard(deps: DashboardDeps, principal: Principal, query: Readonly<Record<string, unknown>>): Promise<Dashboard> {
  const userId = dashboardUser(principal);
  const locale = dashboardLocale(deps.config, query);
  const limit = deps.config.limits.dashboardItems;
  const types = [...deps.config.pieceTypes.values()].filter((type) => !builtinPieceTypeNames.has(type.name));
  const [myDrafts, recentlyChanged, scheduled, needsMyReview] = await Promise.all([
    readMyDrafts(deps, { principal, locale }, userId, types, limit),
    readRecentlyChanged(deps, { principal, locale }, types, limit),
    readScheduled(deps, { principal, locale }, types, limit),
    readNeedsMyReview(deps, { principal, locale }, userId, limit),
  ]);
  return { locale, myDrafts: { results: myDrafts }, recentlyChanged: { results: recentlyChanged }, scheduled: { results: scheduled }, needsMyReview: { results: needsMyReview } };
}

/** Signed-in users from contributor up: an API key or an anonymous caller has no drafts of its own, a guest no drafts to read. */
function dashboardUser(principal: Principal): string {
  if (principal.kind !== 'user' || principal.userId === null) throw new ForbiddenError('The dashboard is for signed-in users');
  if (roleRank(principal.role) < roleRank('contributor')) throw refusal(principal, 'contributor', 'Reading the dashboard');
  return principal.userId;
}

/** `cmsLocale` alone (a locale, not a version: each section picks its own mode). */
function dashboardLocale(config: AppConfig, query: Readonly<Record<string, unknown>>): string {
  const unknown = Object.keys(query).find((key) => key !== 'cmsLocale');
  if (unknown !== undefined) throw new InvalidRequestError(`Unknown parameter ${JSON.stringify(unknown.slice(0, 100))}: the dashboard takes cmsLocale only`, { parameter: unknown.slice(0, 100) });
  const raw = query.cmsLocale;
  if (raw !== undefined && typeof raw !== 'string') throw new InvalidRequestError('cmsLocale: must be a single value', { parameter: 'cmsLocale' });
  const asked = splitLocale(config, raw);
  if (asked.mode !== undefined) throw new InvalidRequestError('cmsLocale: a locale alone here (en, not en:draft)', { parameter: 'cmsLocale' });
  return asked.locale ?? config.defaultLocale;
}

function readMyDrafts(deps: DashboardDeps, caller: Caller, userId: string, types: readonly SanitizedPieceType[], limit: number): Promise<DocumentOutput[]> {
  const mine = [
    { key: ownKeys.editor, op: 'in', values: [userId] },
    { key: ownKeys.unpublished, op: 'in', values: [1] },
  ] as const;
  const editable = types.filter((type) => type.options.localized && canViewDrafts(caller.principal, type) && canWrite(caller.principal, type, 'draft'));
  return newestOf(
    editable.map((type) => firstResults(deps, { ...caller, mode: 'draft' }, type.name, { perPage: String(limit), sort: newestFirst, project }, mine)),
    limit,
  );
}

/**
 * Drafts where the caller may read them, else the published versions; a type the caller sees
 * only through its public projection counts when that projection shows `updatedAt` (what the
 * section is ordered by).
 */
function readRecentlyChanged(deps: DashboardDeps, caller: Caller, types: readonly SanitizedPieceType[], limit: number): Promise<DocumentOutput[]> {
  const { principal } = caller;
  const readable = types.filter((type) => canReadType(principal, type) && canSortOn(type, 'updatedAt', canAccessApi(principal, type)));
  return newestOf(
    readable.map((type) => {
      const mode = canViewDrafts(principal, type) ? 'draft' : 'published';
      return firstResults(deps, { ...caller, mode }, type.name, { perPage: String(limit), sort: newestFirst, project });
    }),
    limit,
  );
}

function readNeedsMyReview(deps: DashboardDeps, caller: Caller, userId: string, limit: number): Promise<DocumentOutput[]> {
  const reads: Promise<DocumentOutput[]>[] = [];
  for (const type of deps.config.pieceTypes.values()) {
    const review = type.options.review;
    if (!review || !canViewDrafts(caller.principal, type) || !canWrite(caller.principal, type, 'draft')) continue;
    const inReview = { key: ownKeys.reviewStage, op: 'in', values: review.stages.slice(1, review.publishIndex).map((stage) => stage.name) } as const;
    const read = (who: FilterCondition) => firstResults(deps, { ...caller, mode: 'draft' }, type.name, { perPage: String(limit), sort: newestFirst, project }, [inReview, who]);
    reads.push(read({ key: ownKeys.reviewer, op: 'in', values: [userId] }));
    if (canPublish(caller.principal, type)) reads.push(read({ key: ownKeys.reviewer, op: 'none' }));
  }
  return newestOf(reads, limit);
}

async function newestOf(perType: readonly Promise<DocumentOutput[]>[], limit: number): Promise<DocumentOutput[]> {
  const all = (await Promise.all(perType)).flat();
  return all.sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt))).slice(0, limit);
}

/**
 * The soonest pending schedules of the types whose drafts the caller may read (schedules are the
 * drafts'), from the due-time index; their drafts read by id through the list, one read per type.
 */
async function readScheduled(deps: DashboardDeps, caller: Caller, types: readonly SanitizedPieceType[], limit: number): Promise<ScheduledItem[]> {
  const withDrafts = types.filter((type) => type.options.localized && canViewDrafts(caller.principal, type)).map((type) => type.name);
  const schedules = await deps.schedules.soonestPending({ types: withDrafts, locale: caller.locale!, limit });
  const byType = new Map<string, Schedule[]>();
  for (const schedule of schedules) byType.set(schedule.type, [...(byType.get(schedule.type) ?? []), schedule]);
  const drafts = new Map<string, DocumentOutput>();
  await Promise.all(
    [...byType].map(async ([typeName, ofType]) => {
      const ids = [...new Set(ofType.map((schedule) => schedule.docId))];
      const query = { _ids: ids, perPage: String(limit), scheduled: 'pending', project };
      for (const doc of await firstResults(deps, { ...caller, mode: 'draft' }, typeName, query)) drafts.set(`${typeName}:${String(doc.cmsDocId)}`, doc);
    }),
  );
  // A draft the list does not answer (archived, out of the caller's sight) leaves its schedule out.
  return schedules.flatMap((schedule) => {
    const document = drafts.get(`${schedule.type}:${schedule.docId}`);
    return document ? [{ action: schedule.action, at: new Date(schedule.dueAt).toISOString(), document }] : [];
  });
}
