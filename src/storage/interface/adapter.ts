import type { AccountSecurityStore } from './account-security.js';
import type { AdvisoryLockStore } from './advisory-locks.js';
import type { ApiKeyStore } from './api-keys.js';
import type { AttachmentStore } from './attachments.js';
import type { AuditStore } from './audit.js';
import type { ChangeLogStore } from './change-log.js';
import type { DocumentStore } from './documents.js';
import type { HistoryStore } from './history.js';
import type { IdempotencyKeyStore } from './idempotency-keys.js';
import type { IndexPlanStore } from './index-plans.js';
import type { LoginThrottleStore } from './login-throttle.js';
import type { LoginStore } from './logins.js';
import type { PresenceStore } from './presence.js';
import type { PreferencesStore } from './preferences.js';
import type { ScheduleStore } from './schedules.js';
import type { SetupCodeStore } from './setup-codes.js';
import type { ShareLinkStore } from './share-links.js';
import type { ReleaseStore } from './releases.js';
import type { ReviewStore } from './review.js';
import type { TokenStore } from './tokens.js';
import type { WebhookOutbox } from './webhooks.js';

/** The stores, read and written through the adapter itself or through a transaction's session. */
export interface StorageSession {
  readonly documents: DocumentStore;
  readonly indexPlans: IndexPlanStore;
  readonly logins: LoginStore;
  readonly setupCodes: SetupCodeStore;
  readonly tokens: TokenStore;
  readonly attachments: AttachmentStore;
  readonly loginThrottle: LoginThrottleStore;
  readonly apiKeys: ApiKeyStore;
  readonly webhooks: WebhookOutbox;
  readonly advisoryLocks: AdvisoryLockStore;
  readonly history: HistoryStore;
  readonly schedules: ScheduleStore;
  readonly audit: AuditStore;
  readonly shareLinks: ShareLinkStore;
  readonly releases: ReleaseStore;
  readonly review: ReviewStore;
  readonly changes: ChangeLogStore;
  readonly presence: PresenceStore;
  readonly preferences: PreferencesStore;
  readonly idempotencyKeys: IdempotencyKeyStore;
  readonly accountSecurity: AccountSecurityStore;
}

export interface StorageCapabilities {
  /** Servers on several machines may share the store (SQLite: the processes of one machine only). */
  readonly sharedAcrossProcesses: boolean;
}

/**
 * What a transaction holds from its start to its end: the documents and attachment records its
 * work reads to write back. Another transaction, in this process or another, that holds one of
 * them waits first; no other write to them comes in between, while writes to others go on.
 * Every hold is taken at the start, documents before attachments, each list in one fixed
 * order, so transactions cannot deadlock on them.
 */
export interface TransactionOptions {
  /** Documents by `cmsDocId`: every version, in every locale and mode, stored yet or not. */
  readonly lock?: readonly string[];
  /** Attachment records by `_id`. */
  readonly lockAttachments?: readonly string[];
}

/** What a kept answer was built from: generation keys, and document versions by `_id`. */
export interface GenerationSources {
  readonly keys: readonly string[];
  readonly versions: readonly string[];
}

/** One connection of the store: the primary, or a read replica. */
export interface StoreConnectionHealth {
  readonly role: 'primary' | 'replica';
  /** Which one, never with its credentials: `replica 1 (10.0.0.5:5432)`. */
  readonly name: string;
  readonly up: boolean;
  /** A replica: how far behind the primary it is, in ms (null: not measured yet). */
  readonly lagMs?: number | null;
  /** A replica: whether reads pass it by (down, or lagging beyond the bound). */
  readonly skipped?: boolean;
  /** Reads of GET requests it answered since the process started. */
  readonly served: number;
  readonly error?: string;
}

/** The store's position, and a token of the generations of some sources (null: not read). */
export interface GenerationRead {
  readonly position: string;
  readonly token: string | null;
}

export interface StorageAdapter extends StorageSession {
  readonly capabilities: StorageCapabilities;
  /** Creates or upgrades the schema; idempotent. */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction: everything it writes through `tx` commits together or not
   * at all. Reads through `tx` see the transaction's own writes; reads through the adapter itself
   * see only committed data. Transactions may run side by side (PostgreSQL) and `work` may then
   * be run again from the start, when its transaction lost a race (a deadlock, a slug another
   * writer took first): it must act through `tx` alone, and what it read before is forgotten.
   * What `work` reads to write back it names in `options` (`TransactionOptions`).
   */
  transaction<T>(work: (tx: StorageSession) => Promise<T>): Promise<T>;
  transaction<T>(options: TransactionOptions, work: (tx: StorageSession) => Promise<T>): Promise<T>;
  /**
   * A token of the committed data of the generation `keys` (piece type names, each counted up by
   * writes to the type's documents; `<type>:<mode>`, by writes to its versions of that mode, the
   * empty mode for a type without modes; and the key the adapter was created with for attachment
   * writes), for caches of answers built from them: it changes whenever a write to one of them
   * commits, from this process or from another sharing the store, and never comes back to an
   * earlier value. Writes to others leave it as it was. Read it before the data it is to vouch
   * for: an answer built after a write it missed is then merely refreshed once more than needed.
   * Cheap: one small query at most.
   */
  generation(keys: readonly string[]): Promise<string>;
  /**
   * `generation` of `sources`, keys and document versions, with the store's position: a token
   * that moves at least whenever a write that moves a generation commits (it may move more
   * often) and never comes back. With `since` (a position read before), the generations are not
   * read while the store is still there (`token: null`: nothing was written since). The position
   * is read no later than the generations (a write it misses moves it again), or with
   * `positionLast` no earlier (the same position read before the data and now says that nothing
   * was written in between). A version's generation moves with every write to it, is 0 while it
   * does not exist, and its row goes with it: it costs nothing once the version is removed.
   */
  generations(sources: GenerationSources, options?: { readonly since?: string; readonly positionLast?: boolean }): Promise<GenerationRead>;
  /**
   * Brings the query planner's statistics up to date where they are stale, after a bulk of
   * writes (`cms import`): SQLite's `PRAGMA optimize` (which the adapter also runs by itself every
   * so many rows written and every so often), PostgreSQL's ANALYZE of the store's tables (its
   * autovacuum gets to them a minute or more later, or never where it is off). Until then a
   * planner that believes the tables empty may read a whole type for every row of a list.
   */
  refreshStatistics(): Promise<void>;
  /** True while the store answers. */
  ping(): Promise<boolean>;
  /**
   * Each connection of a store that has more than one (a primary and its read replicas), for
   * `/health`; absent when the store has only one.
   */
  connections?(): Promise<StoreConnectionHealth[]>;
  close(): Promise<void>;
}
