/** What a schedule does at its time: publish the draft, or unpublish the published version. */
export type ScheduleAction = 'publish' | 'unpublish';

/** `pending`: waits for its time (or runs now); `failed`: ran and was refused, kept with its reason. */
export type ScheduleStatus = 'pending' | 'failed';

/** Which schedule: one per draft version and action. */
export interface ScheduleKey {
  /** The draft's `_id` (`<cmsDocId>:<locale>:draft`). */
  readonly versionId: string;
  readonly action: ScheduleAction;
}

/** A schedule as the content layer writes it. Times are ms since the epoch. */
export interface NewSchedule extends ScheduleKey {
  readonly type: string;
  readonly docId: string;
  readonly locale: string;
  readonly dueAt: number;
  /** Who scheduled it, as the content layer records it (JSON), acted as at the time. */
  readonly by: string;
}

/** A schedule as kept. */
export interface Schedule extends NewSchedule {
  readonly status: ScheduleStatus;
  /** How many runs were claimed and did not end (a process stopped, the store failed). */
  readonly attempts: number;
  /**
   * The latest change to the draft since it was scheduled by someone the content layer does not
   * trust to publish it (JSON, as that layer writes it); null: none (`setUnreviewedChange`).
   */
  readonly unreviewedChange: string | null;
}

/**
 * The due-time index of scheduled publishing (issue 25): a row per pending or failed schedule,
 * written with the draft that shows it, in one transaction. Schedulers on any number of
 * processes share it by claims: a due schedule is leased to one claimer at a time, and the run
 * that removes it (`complete`) commits only for the claim that holds it.
 */
export interface ScheduleStore {
  /**
   * Adds the schedule, or replaces the one of the same key (no attempts, no claim, no unreviewed
   * change), pending unless `status` says otherwise (`cms import` restores failed ones as they were).
   */
  put(schedule: NewSchedule, status?: ScheduleStatus): Promise<void>;
  /** Removes a schedule whatever its state; false when there was none. */
  remove(key: ScheduleKey): Promise<boolean>;
  /**
   * Leases up to `limit` pending schedules due at `now`, whose lease (if any) ran out, to `token`
   * until `now + leaseMs`, earliest first, counting an attempt each. Atomic across processes.
   */
  claimDue(args: { now: number; leaseMs: number; token: string; limit: number }): Promise<Schedule[]>;
  /**
   * Whether a claim at `now` would take anything: a read, so that looking every few seconds
   * while nothing is due takes no write lock (SQLite) and starts no write transaction.
   */
  anyDue(now: number): Promise<boolean>;
  /**
   * Removes the schedule when `token` still holds its claim (the run commits with it) and answers
   * it as it was then; null otherwise.
   */
  complete(key: ScheduleKey, token: string): Promise<Schedule | null>;
  /**
   * Records the latest unreviewed change to the schedule's draft (null: clears it), whatever the
   * schedule's state or claim; false when there is no such schedule.
   */
  setUnreviewedChange(key: ScheduleKey, change: string | null): Promise<boolean>;
  /** Marks the schedule failed when `token` still holds its claim, ending the claim; false otherwise. */
  fail(key: ScheduleKey, token: string): Promise<boolean>;
  /**
   * Up to `limit` pending schedules of these types in `locale`, soonest first (then by draft id
   * and action): the dashboard's scheduled publishes. Walks the due-time index in order, so it
   * reads the pending schedules due before the last one it answers, of any type.
   */
  soonestPending(args: { types: readonly string[]; locale: string; limit: number }): Promise<Schedule[]>;
  /** Up to `limit` schedules whose key sorts after `after` (null: from the first), by draft id then action (`cms export`). */
  schedulesAfter(after: ScheduleKey | null, limit: number): Promise<Schedule[]>;
  /** Adds a schedule exactly as it was kept, attempts and unreviewed change included, unclaimed (`cms import`). */
  restore(schedule: Schedule): Promise<void>;
}
