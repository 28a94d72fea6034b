import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import type { Schedule, StorageSession } from '../../storage/storage-adapter.js';
import type { DocumentCollaborators } from './collaborators.js';
import type { ScheduleOutput } from './schedules.js';
import type { ScheduledRun } from '../../core/audit.js';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors/app-error.js';
import { isRole, userTypeName } from '../../core/principal.js';
import { parseScheduledBy, scheduleProperties } from './schedules.js';
import { unreviewedReason } from './schedule-review.js';
import { readVersion } from './version-reads.js';
import { publish } from './operations/publish.js';
import { unpublish } from './operations/unpublish.js';

type RunnerDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'schedules' | 'apiKeys' | 'transactions' | 'versions' | 'values' | 'changes' | 'presenter'>;

// Due schedules one look claims at most; more wait for the next look (a moment later).
const claimLimit = 50;

/**
 * Runs the due schedules (issue 25) through the publish and unpublish operations, as the one who
 * scheduled them, so a scheduled run does and records what a manual one would (change events,
 * webhooks), its audit record saying which schedule ran it (`detail.schedule`). Exactly once on
 * any number of processes: a claim leases the row to one process, and the run's own transaction
 * removes the row only while that claim holds it, or rolls back. A refusal (the operation's 4xx:
 * the user is gone or may no longer publish, the API key is revoked, no longer configured or
 * may no longer publish, the draft was changed by someone who may not publish it since, the
 * document or its published version is gone) marks the schedule failed with the reason, shown
 * on the draft.
 */
export class ScheduleRunner {
  readonly #deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /**
   * Claims and runs the schedules due now; answers how many it claimed. A run that failed
   * otherwise than by a refusal (the store failing) is claimed again once its lease ends: the
   * first such error is thrown once the others ran.
   */
  async runDue(now = Date.now()): Promise<number> {
    // Most looks find nothing due: a read answers them, and only a due schedule costs a claim.
    if (!(await this.#deps.schedules.anyDue(now))) return 0;
    const { scheduleLease, scheduleAttempts } = this.#deps.config.limits;
    const token = randomUUID();
    const due = await this.#deps.transactions.run({}, (tx) => tx.schedules.claimDue({ now, leaseMs: scheduleLease, token, limit: claimLimit }));
    const unexpected: unknown[] = [];
    for (const schedule of due) {
      try {
        if (schedule.attempts > scheduleAttempts) await this.#fail(schedule, token, `Gave up after ${scheduleAttempts} attempts that did not finish`);
        else await this.#run(schedule, token);
      } catch (error) {
        unexpected.push(error);
      }
    }
    if (unexpected.length > 0) throw unexpected[0];
    return due.length;
  }

  async #run(schedule: Schedule, token: string): Promise<void> {
    const principal = await this.#actingPrincipal(schedule);
    if (typeof principal === 'string') return this.#fail(schedule, token, principal);
    const operation = schedule.action === 'publish' ? publish : unpublish;
    const caller = { principal, schedule: scheduledRunOf(schedule) };
    try {
      await operation(this.#deps, caller, schedule.type, schedule.versionId, (tx) => this.#claimRun(tx, schedule, token));
    } catch (error) {
      if (error instanceof ClaimLost) return;
      // Anything else (the store failing) is claimed again once the lease ends, up to scheduleAttempts.
      if (!(error instanceof AppError)) throw error;
      await this.#fail(schedule, token, reasonOf(error, schedule, principal));
    }
  }

  /**
   * In the run's transaction: removes the schedule from the index and the draft, while the claim
   * holds; refuses a publish of a draft changed since by someone who may not publish it (the
   * removal rolls back with the refusal).
   */
  async #claimRun(tx: StorageSession, schedule: Schedule, token: string): Promise<void> {
    const claimed = await tx.schedules.complete(schedule, token);
    if (!claimed) throw new ClaimLost();
    if (schedule.action === 'publish' && claimed.unreviewedChange !== null) {
      throw new ConflictError(unreviewedReason(claimed.unreviewedChange, schedule.type));
    }
    const type = this.#deps.config.pieceTypes.get(schedule.type)!;
    const draft = await readVersion(tx, type, schedule.versionId);
    const property = scheduleProperties[schedule.action];
    if (draft && draft[property] !== undefined) {
      delete draft[property];
      await this.#deps.versions.updateBookkeeping(tx, draft);
    }
  }

  /** Marks the schedule failed, on the draft too, while the claim holds; a draft gone takes its schedule with it. */
  async #fail(schedule: Schedule, token: string, reason: string): Promise<void> {
    const type = this.#deps.config.pieceTypes.get(schedule.type);
    await this.#deps.transactions.run({ lock: [schedule.docId] }, async (tx) => {
      const draft = type ? await readVersion(tx, type, schedule.versionId) : null;
      if (!draft) return void (await tx.schedules.remove(schedule));
      if (!(await tx.schedules.fail(schedule, token))) return;
      const property = scheduleProperties[schedule.action];
      const shown = draft[property] as ScheduleOutput | undefined;
      draft[property] = { ...(shown ?? failedShape(schedule)), status: 'failed', reason };
      await this.#deps.versions.updateBookkeeping(tx, draft);
    });
  }

  /** Who the run acts as: the user or the API key who scheduled it, with the role they have now; a string: why not. */
  #actingPrincipal(schedule: Schedule): Promise<Principal | string> {
    return actingPrincipal(this.#deps, schedule.by);
  }
}

/**
 * Who a scheduled run acts as (a schedule's, a release's): the user or the API key `byText`
 * records, with the role they have now; a string: why not.
 */
export async function actingPrincipal(deps: Pick<RunnerDeps, 'apiKeys' | 'store'>, byText: string): Promise<Principal | string> {
  const by = parseScheduledBy(byText);
  if (!by) return 'Who scheduled it is not recorded';
  if (by.kind === 'apiKey') {
    // An import (or a schedule older than this check) does not hold the key: it cannot be asked about.
    if (by.keyId === null) return 'The API key that scheduled it is not recorded: schedule it again';
    const key = await deps.apiKeys.keyOf(by.keyId);
    if (key === null) return 'The API key that scheduled it was revoked or is no longer configured';
    return { kind: 'apiKey', role: key.role, userId: null, title: by.title, username: null, ...(key.keyId !== undefined && { keyId: key.keyId }) };
  }
  const [user] = by.userId === null ? [] : await deps.store.find({ type: userTypeName, ids: [by.userId], limit: 1 });
  if (!user || user.disabled === true || user.archived === true) return `The user who scheduled it (${by.username ?? by.title}) no longer exists or is disabled`;
  const role = isRole(user.role) ? user.role : 'guest';
  return { kind: 'user', role, userId: user._id, title: String(user.title ?? ''), username: String(user.username ?? '') };
}

/** Another process took the schedule over, or it was changed or cancelled meanwhile: the run writes nothing. */
class ClaimLost extends Error {}

/** What a draft that lost its property (an import) shows of a failed schedule. */
function failedShape(schedule: Schedule): Omit<ScheduleOutput, 'status'> {
  const by = parseScheduledBy(schedule.by);
  return { at: new Date(schedule.dueAt).toISOString(), by: { _id: by?.userId ?? null, title: by?.title ?? '', username: by?.username ?? null } };
}

/** What the audit record of a run says of its schedule: when it was due, and who set it. */
function scheduledRunOf(schedule: Schedule): ScheduledRun {
  const by = parseScheduledBy(schedule.by);
  return {
    at: new Date(schedule.dueAt).toISOString(),
    by: { kind: by?.kind ?? 'apiKey', _id: by?.userId ?? null, username: by?.username ?? null, title: by?.title ?? '' },
  };
}

/** The refusal in words an editor can act on. */
function reasonOf(error: AppError, schedule: Schedule, principal: Principal): string {
  const who = principal.kind === 'apiKey' ? 'The API key that scheduled it' : (principal.username ?? principal.title ?? 'The user who scheduled it');
  if (error instanceof ForbiddenError) return `${who} may no longer ${schedule.action} ${schedule.type}`;
  if (error instanceof NotFoundError) {
    return schedule.action === 'unpublish' ? 'The document was not published at the time' : 'The document no longer exists';
  }
  if (error instanceof ValidationError) return error.errors.map((field) => `${field.path}: ${field.message}`).join('; ');
  return error.message;
}
