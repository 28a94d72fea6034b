import type { Mode } from '../core/ids.js';

/**
 * The narrow storage interface the services depend on. One adapter per database implements it
 * (`sqlite/` now, PostgreSQL later); nothing above this file knows SQL.
 */

/** A document version as stored: the common properties plus whatever the piece type's fields wrote. */
export interface StoredDocument {
  _id: string;
  cmsDocId: string;
  /** `<locale>:<mode>` for localized types; absent for non-localized ones (users). */
  cmsLocale?: string;
  cmsMode?: Mode;
  type: string;
  slug: string;
  title: string;
  titleSortified: string;
  archived: boolean;
  visibility?: string;
  createdAt: string;
  updatedAt: string;
  [property: string]: unknown;
}

export type SortDirection = 1 | -1;

/** Columns every adapter indexes; sorting on any other property is allowed but not indexed. */
export const indexedSortFields = ['updatedAt', 'createdAt', 'titleSortified', 'slug', 'title', '_id'] as const;

/** A scalar the filter index holds: strings compare as text, numbers as numbers. */
export type IndexValue = string | number;

/** One value of one filterable field of a document (a multi-valued field has several). */
export interface IndexEntry {
  /** The field's index key: its storage key (`category`, `authorIds`). */
  readonly key: string;
  readonly value: IndexValue;
}

/**
 * The texts full-text search reads, ranked title > high > low. The `public*` texts hold only
 * what the type's public projection shows: anonymous searches read those alone.
 */
export interface SearchTexts {
  readonly title: string;
  readonly high: string;
  readonly low: string;
  readonly publicTitle: string;
  readonly publicHigh: string;
  readonly publicLow: string;
}

/** What the content layer derives from a document for filtering and search; written with it. */
export interface DocumentIndex {
  readonly values: readonly IndexEntry[];
  readonly search: SearchTexts;
}

/** A condition on a field's index values, without the key it applies to. */
export type FilterOperation =
  /** At least one of the document's values equals one of these. */
  | { readonly op: 'in'; readonly values: readonly IndexValue[] }
  /** Every one of these is among the document's values. */
  | { readonly op: 'all'; readonly values: readonly IndexValue[] }
  /** Some value lies within the bounds (inclusive; a missing bound is open). */
  | { readonly op: 'range'; readonly min?: IndexValue; readonly max?: IndexValue }
  /** Some text value contains `text`, ignoring (at least ASCII) case. */
  | { readonly op: 'contains'; readonly text: string }
  /** The document has no value at all for the key. */
  | { readonly op: 'none' };

export type FilterCondition = FilterOperation & { readonly key: string };

/** A full-text search, in words the adapter turns into its engine's query language. */
export interface TextSearch {
  /** Words as typed (the adapter tokenizes and stems them like the indexed texts). */
  readonly words: readonly string[];
  /** `any`: a document matching one word qualifies (ranked by how well it matches); `all`: every word. */
  readonly match: 'any' | 'all';
  /** Each word also matches the words it begins (autocomplete). */
  readonly prefix: boolean;
  /** Phrases (each a list of words in order) that must all appear. */
  readonly phrases: readonly (readonly string[])[];
  /** Words that must not appear. */
  readonly without: readonly string[];
  /** `public`: only the public texts of the index are searched. */
  readonly texts: 'all' | 'public';
}

/** What a query selects within its type (or every type): everything but the type and the id lists. */
export interface DocumentSelection {
  /** Locale of the versions wanted; `null` selects non-localized documents. Undefined: any. */
  readonly locale?: string | null;
  /** Mode of the versions wanted; `null` selects non-localized documents. Undefined: any. */
  readonly mode?: Mode | null;
  readonly slug?: string;
  /** Undefined: archived and live alike. */
  readonly archived?: boolean;
  /** Only documents whose `visibility` is one of these (documents without one count as `public`). */
  readonly visibility?: readonly string[];
  /** Every condition must hold. */
  readonly conditions?: readonly FilterCondition[];
  readonly search?: TextSearch;
  /**
   * Order: `sort` as given; `relevance`: best search match first (needs `search`), then `sort`;
   * `ids`: the order of `ids` (or else `docIds`) as given, then `sort`.
   */
  readonly order?: 'sort' | 'relevance' | 'ids';
  readonly sort?: readonly { readonly field: string; readonly direction: SortDirection }[];
  readonly skip?: number;
  readonly limit?: number;
}

/**
 * A query always names its type: an id sent for one type never reaches a document of another
 * (issue 20: a route of one type acting on another's document with the first one's rules).
 * `type: null` reads every type, for the few reads that span the store (an export's count),
 * and never by id: adapters refuse it with `ids` or `docIds` (`assertTypedLookup`).
 */
export type DocumentQuery = TypeQuery | EveryTypeQuery;

/** A query of one type's documents, by id or otherwise. */
export interface TypeQuery extends DocumentSelection {
  readonly type: string;
  readonly ids?: readonly string[];
  readonly docIds?: readonly string[];
}

/** A query of every type's documents: never by id. */
export interface EveryTypeQuery extends DocumentSelection {
  readonly type: null;
  readonly ids?: undefined;
  readonly docIds?: undefined;
}

/** Refuses a lookup by id that names no type: a caller's mistake, which the types should have caught. */
export function assertTypedLookup(query: DocumentQuery): void {
  if (query.type === null && (query.ids !== undefined || query.docIds !== undefined)) {
    throw new Error('A document lookup by id names its type');
  }
}

export interface DocumentStore {
  find(query: DocumentQuery): Promise<StoredDocument[]>;
  count(query: DocumentQuery): Promise<number>;
  /**
   * Distinct index values of `key` among the documents `query` matches (sort, skip and limit
   * ignored), each with the number of those documents holding it, ordered by value.
   */
  distinctValues(query: DocumentQuery, key: string): Promise<{ value: IndexValue; count: number }[]>;
  /**
   * Stores the document with its filter values and search texts, replacing nothing.
   * Throws ConflictError (data.constraint `id` or `slug`) when the `_id` or the slug is taken.
   */
  insert(doc: StoredDocument, index: DocumentIndex): Promise<void>;
  /**
   * Replaces the stored version with the same `_id` and the same `type` (a version of another
   * type is left alone), its index entries and search texts with it; false when there is none. Slug conflicts as insert. Without `index` the stored entries and
   * texts stay: for a change to no field they come from (a draft's `modified` flag, say).
   */
  update(doc: StoredDocument, index?: DocumentIndex): Promise<boolean>;
  /**
   * Removes the versions of `type` with these `_id`s (those of another type stay) and their
   * index entries; returns how many there were.
   */
  remove(type: string, ids: readonly string[]): Promise<number>;
  /**
   * Slugs in use in one locale and mode (null for non-localized) that equal `base` or start with
   * `base-`, ignoring the versions of `exceptDocId`: the service picks the next free suffix.
   * Inside a transaction, another transaction's lookup of the same base in the same locale may
   * wait until this one ends, so that the slug picked stays free meanwhile.
   */
  slugsLike(args: { locale: string | null; mode: Mode | null; base: string; exceptDocId?: string }): Promise<string[]>;
  /**
   * Up to `limit` versions of `type` (every type: null) whose `_id` sorts after `afterId` (all:
   * null), in bytewise `_id` order.
   */
  versionsAfter(type: string | null, afterId: string | null, limit: number): Promise<StoredDocument[]>;
  /** The digest of the index plan that the type's stored index was last derived by (null: none yet). */
  indexedBy(type: string): Promise<string | null>;
  /** Records that the type's stored index now follows the plan with this digest. */
  markIndexed(type: string, digest: string): Promise<void>;
  /**
   * Inside a transaction: holds the documents `docIds` (every version, in every locale and
   * mode, stored yet or not) until the transaction ends, waiting first while another
   * transaction, in this process or another, holds one of them. A transaction that reads a
   * document to write it back locks it first: no other write to it comes in between, while
   * writes to other documents go on. Outside a transaction it does nothing. Transactions that
   * lock several documents in one call cannot deadlock on them.
   */
  lock(docIds: readonly string[]): Promise<void>;
}

/** Login data of a user, kept apart from the user document so it is never returned. */
export interface UserLogin {
  userId: string;
  username: string;
  email: string | null;
  passwordHash: string;
}

export interface LoginStore {
  get(userId: string): Promise<UserLogin | null>;
  /** Matches the username, or the email. */
  findByName(usernameOrEmail: string): Promise<UserLogin | null>;
  /** Throws ConflictError (data.constraint `username` or `email`) when another user has them. */
  put(login: UserLogin): Promise<void>;
  remove(userId: string): Promise<void>;
  /** Up to `limit` logins whose `userId` sorts after `afterUserId` (all: null), in bytewise `userId` order. */
  loginsAfter(afterUserId: string | null, limit: number): Promise<UserLogin[]>;
  /**
   * Keeps the digest of a first-run setup code a process made and logged: every process of the
   * store accepts every code any of them logged, until the first admin exists.
   */
  addSetupCode(digest: string): Promise<void>;
  /** Whether any setup code is kept. */
  hasSetupCodes(): Promise<boolean>;
  /** Removes the code with this digest; true when it was kept (then only this caller got it). */
  takeSetupCode(digest: string): Promise<boolean>;
}

export interface BearerToken {
  token: string;
  userId: string;
  expiresAt: string;
}

export interface TokenStore {
  get(token: string): Promise<BearerToken | null>;
  put(token: BearerToken): Promise<void>;
  remove(token: string): Promise<void>;
  removeForUser(userId: string): Promise<void>;
}

/**
 * An API key kept in the store (made by `cms apikey create`): its SHA-256 digest, never the key
 * itself, so a copy of the database holds no usable key.
 */
export interface StoredApiKey {
  id: string;
  /** SHA-256 of the key, hex. */
  digest: string;
  role: string;
  label: string;
  /** The key's first characters, to tell keys apart in a list; far too few to guess the rest. */
  hint: string;
  createdAt: string;
  /** When it was last used, kept coarsely (the server writes it at most once a minute); null: never. */
  lastUsedAt: string | null;
}

export interface ApiKeyStore {
  /** Throws ConflictError (data.constraint `id`) when the id or the digest is taken. */
  insert(key: StoredApiKey): Promise<void>;
  /** The key with this digest, by its primary key: what the server asks for a key it does not know. */
  findByDigest(digest: string): Promise<StoredApiKey | null>;
  /** Every key, oldest first. */
  list(): Promise<StoredApiKey[]>;
  /** Removes the key; true when it existed. */
  remove(id: string): Promise<boolean>;
  /** Records a use at `usedAt` (ISO time), unless a later one is recorded already. */
  markUsed(id: string, usedAt: string): Promise<void>;
}

/** One attempt counted against `key`: `limit` attempts within `periodMs` lock it for `periodMs`. */
export interface ThrottleKey {
  readonly key: string;
  readonly limit: number;
  readonly periodMs: number;
}

/**
 * Login attempts counted per key (a username, a client address), in the store so that every
 * server process sees the same counts. An attempt is counted before it is checked, so that
 * requests sent side by side are throttled as those sent one after another. Times are
 * milliseconds since the epoch.
 */
export interface LoginThrottleStore {
  /** The latest time until which one of `keys` is locked, or null when none is locked at `now`. */
  lockedUntil(keys: readonly string[], now: number): Promise<number | null>;
  /**
   * Counts one attempt against every one of `keys` at `now`, or against none: null when each
   * took it, else the latest time until which one of them is locked. Atomic however many
   * requests take at once: each sees the others' counts. A locked key refuses; a count whose
   * period is over starts again at one; the count reaching its limit locks the key until
   * `now + periodMs`. Removes the entries whose period has ended.
   */
  take(keys: readonly ThrottleKey[], now: number): Promise<number | null>;
  /**
   * Uncounts one attempt taken against `key` within its period, one that was not a failure
   * after all; below its limit again, the key is unlocked.
   */
  giveBack(key: ThrottleKey, now: number): Promise<void>;
  /** Forgets the attempts counted against `key`. */
  clear(key: string): Promise<void>;
}

/** A crop box of an image, in pixels of the image as displayed (EXIF orientation applied). */
export interface AttachmentCrop {
  readonly top: number;
  readonly left: number;
  readonly width: number;
  readonly height: number;
}

/** An uploaded file's record, as the media module writes it. */
export interface AttachmentRecord {
  _id: string;
  type: 'attachment';
  group: string;
  extension: string;
  /** Slug of the uploaded file's base name; part of every file name of the attachment. */
  name: string;
  title: string;
  length: number;
  md5: string;
  /** Images with pixels (not SVG): size as displayed, EXIF orientation applied. */
  width?: number;
  height?: number;
  landscape?: boolean;
  portrait?: boolean;
  crops: AttachmentCrop[];
  createdAt: string;
  updatedAt: string;
}

/** A record with the document versions that hold it, live and archived, each list sorted. */
export interface StoredAttachment extends AttachmentRecord {
  docIds: string[];
  archivedDocIds: string[];
}

export interface AttachmentStore {
  /** The attachments with these ids that exist, in no particular order. */
  find(ids: readonly string[]): Promise<StoredAttachment[]>;
  /**
   * Records a new upload and who uploaded it (`uploadedBy`, a caller id; null or absent: unknown), kept
   * apart from the record. Throws ConflictError (data.constraint `id`) when the `_id` is taken.
   */
  insert(record: AttachmentRecord, uploadedBy?: string | null): Promise<void>;
  /** Who uploaded these attachments, for those that exist and whose uploader is known. */
  uploaders(ids: readonly string[]): Promise<AttachmentUploader[]>;
  /** Up to `limit` attachments whose `_id` sorts after `afterId` (all: null), with their usage, in bytewise `_id` order. */
  attachmentsAfter(afterId: string | null, limit: number): Promise<StoredAttachment[]>;
  /**
   * Stores an attachment as an export holds it: the record, the versions that hold it (`docIds`,
   * `archivedDocIds`) and whether its files are to be readable, which they are taken to be
   * already (an import places them first). Unused, it is unused from now on (`findUnused`).
   * Throws ConflictError (data.constraint `id`) when the `_id` is taken. `uploadedBy` as for `insert`.
   */
  restore(attachment: StoredAttachment, readable: boolean, uploadedBy?: string | null): Promise<void>;
  /** Replaces the record with the same `_id` (its usage stays); false when there is none. */
  update(record: AttachmentRecord): Promise<boolean>;
  /**
   * Records that the document version `docVersionId` now holds exactly these attachments,
   * archived or not, replacing what it held before; an empty list forgets the version.
   * Ids without a record are ignored. An attachment that no version holds any more is unused
   * from now on (`findUnused`). Answers the ids of the attachments whose usage changed: held
   * or let go by the version, or held now archived where it was not (or the reverse).
   */
  setUsage(docVersionId: string, attachmentIds: readonly string[], archived: boolean): Promise<string[]>;
  /**
   * Records whether the files of these attachments are to be readable; answers the ids whose
   * value changed. The files themselves are made to match after the transaction commits.
   */
  setReadable(ids: readonly string[], readable: boolean): Promise<string[]>;
  /** Where the files of these attachments stand, for those that exist. */
  fileStates(ids: readonly string[]): Promise<AttachmentFileState[]>;
  /** Up to `limit` attachments whose files were not yet made to match their `readable`. */
  unsettledFiles(limit: number): Promise<AttachmentFileState[]>;
  /** Records that the files of `id` were made readable (or unreadable). */
  markFiles(id: string, readable: boolean): Promise<void>;
  /** Up to `limit` attachments that no document version has held since before `before` (ms since the epoch). */
  findUnused(before: number, limit: number): Promise<StoredAttachment[]>;
  /** Removes the record of `id` when still no version holds it and none has since before `before`; true when removed. */
  removeUnused(id: string, before: number): Promise<boolean>;
  /** Holds the attachment records `ids` as `DocumentStore.lock` holds documents. */
  lock(ids: readonly string[]): Promise<void>;
}

/** Who uploaded an attachment: the caller id its upload was charged to (`user:<id>`, `key:<digest>`). */
export interface AttachmentUploader {
  readonly id: string;
  readonly uploadedBy: string;
}

/**
 * Whether an attachment's files are to be readable (decided by the content layer when a write
 * changes the attachment's usage; true for new uploads), and whether they were last made so.
 */
export interface AttachmentFileState {
  readonly id: string;
  readonly readable: boolean;
  readonly filesReadable: boolean;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One change event to deliver to one endpoint, as the content layer writes it with the change. */
export interface NewWebhookDelivery {
  /** The event's id, shared by its deliveries to every endpoint (receivers deduplicate on it). */
  readonly eventId: string;
  readonly endpoint: string;
  /** The document the event is about: its deliveries to one endpoint go out in the order written. */
  readonly docId: string;
  readonly event: string;
  readonly type: string;
  /** The request body, sent (and signed) as it is. */
  readonly payload: string;
}

/** A delivery as kept: what was asked, and how its attempts went. Times are ms since the epoch. */
export interface WebhookDelivery extends NewWebhookDelivery {
  /** Grows with each delivery written: later writes of a document have larger ids. */
  readonly id: number;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  /** HTTP status of the last attempt; null when it got none (refused, timed out) or none was made. */
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The outcome of one attempt, recorded by the process that claimed the delivery. */
export interface WebhookAttempt {
  readonly id: number;
  /** The claim's token: an attempt whose lease ran out (another process took over) records nothing. */
  readonly token: string;
  /** `pending`: to be tried again at `nextAttemptAt`. */
  readonly status: WebhookDeliveryStatus;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly nextAttemptAt: number;
  readonly now: number;
}

/**
 * The transactional outbox of webhook deliveries. Writes made in a transaction commit with the
 * change they tell of, or not at all; senders on any number of processes share it by leases.
 */
export interface WebhookOutbox {
  /** Adds pending deliveries, due at once, in the order given. */
  enqueue(deliveries: readonly NewWebhookDelivery[], now: number): Promise<void>;
  /**
   * Leases up to `limit` due pending deliveries of these endpoints to the caller until
   * `now + leaseMs`, oldest first, and answers them. A delivery is due once its `nextAttemptAt`
   * has come, no lease on it holds, and no earlier delivery of the same document to the same
   * endpoint is still pending. Atomic across processes: a delivery is leased to one claimer at a time.
   */
  claim(args: { endpoints: readonly string[]; now: number; leaseMs: number; token: string; limit: number }): Promise<WebhookDelivery[]>;
  /** Records an attempt and ends the lease; false when the lease was no longer the caller's. */
  record(attempt: WebhookAttempt): Promise<boolean>;
  /** Deliveries, newest first, with ids below `beforeId` (all: undefined). */
  list(args: { status?: WebhookDeliveryStatus; endpoint?: string; beforeId?: number; limit: number }): Promise<WebhookDelivery[]>;
  /** How many deliveries each endpoint has in each status (only those it has). */
  counts(): Promise<{ endpoint: string; status: WebhookDeliveryStatus; count: number }[]>;
  /** A failed delivery becomes pending again, due at `now`, its attempts counted anew; false when it is not failed. */
  retry(id: number, now: number): Promise<boolean>;
  /** Removes up to `limit` delivered and failed deliveries last changed before `before`; answers how many. */
  prune(before: number, limit: number): Promise<number>;
}

export interface StorageSession {
  readonly documents: DocumentStore;
  readonly logins: LoginStore;
  readonly tokens: TokenStore;
  readonly attachments: AttachmentStore;
  readonly loginThrottle: LoginThrottleStore;
  readonly apiKeys: ApiKeyStore;
  readonly webhooks: WebhookOutbox;
}

export interface StorageCapabilities {
  /** Servers on several machines may share the store (SQLite: the processes of one machine only). */
  readonly sharedAcrossProcesses: boolean;
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
   * What `work` reads to write back it locks first (`documents.lock`).
   */
  transaction<T>(work: (tx: StorageSession) => Promise<T>): Promise<T>;
  /**
   * A token of the committed data of `scopes` (piece type names, and `attachmentsScope`), for
   * caches of answers built from them: it changes whenever a write to one of them commits, from
   * this process or from another sharing the store, and never comes back to an earlier value.
   * Writes to other scopes leave it as it was. Read it before the data it is to vouch for: an
   * answer built after a write it missed is then merely refreshed once more than needed. Cheap:
   * one small query at most.
   */
  generation(scopes: readonly string[]): Promise<string>;
  /** True while the store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The generation scope of the attachment records and of which document versions use them
 * (`StorageAdapter.generation`); the parentheses keep it apart from every piece type name.
 */
export const attachmentsScope = '(attachments)';
