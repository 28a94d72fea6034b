import type { Mode } from '../content/fields/field-type.js';

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

export interface DocumentQuery {
  readonly type?: string;
  /** Locale of the versions wanted; `null` selects non-localized documents. Undefined: any. */
  readonly locale?: string | null;
  /** Mode of the versions wanted; `null` selects non-localized documents. Undefined: any. */
  readonly mode?: Mode | null;
  readonly ids?: readonly string[];
  readonly docIds?: readonly string[];
  readonly slug?: string;
  /** Undefined: archived and live alike. */
  readonly archived?: boolean;
  /** Only documents whose `visibility` is one of these (documents without one count as `public`). */
  readonly visibility?: readonly string[];
  readonly sort?: readonly { readonly field: string; readonly direction: SortDirection }[];
  readonly skip?: number;
  readonly limit?: number;
}

export interface DocumentStore {
  find(query: DocumentQuery): Promise<StoredDocument[]>;
  count(query: DocumentQuery): Promise<number>;
  /** Throws ConflictError (data.constraint `id` or `slug`) when the `_id` or the slug is taken. */
  insert(doc: StoredDocument): Promise<void>;
  /** Replaces the stored version with the same `_id`; false when there is none. Slug conflicts as insert. */
  update(doc: StoredDocument): Promise<boolean>;
  /** Removes the versions with these `_id`s; returns how many there were. */
  remove(ids: readonly string[]): Promise<number>;
  /**
   * Slugs in use in one locale and mode (null for non-localized) that equal `base` or start with
   * `base-`, ignoring the versions of `exceptDocId`: the service picks the next free suffix.
   */
  slugsLike(args: { locale: string | null; mode: Mode | null; base: string; exceptDocId?: string }): Promise<string[]>;
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

export interface StorageSession {
  readonly documents: DocumentStore;
  readonly logins: LoginStore;
  readonly tokens: TokenStore;
}

export interface StorageCapabilities {
  /** Several server processes may share the store. */
  readonly sharedAcrossProcesses: boolean;
}

export interface StorageAdapter extends StorageSession {
  readonly capabilities: StorageCapabilities;
  /** Creates or upgrades the schema; idempotent. */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction: everything it writes through `tx` commits together or not
   * at all. Reads through `tx` see the transaction's own writes; reads through the adapter itself
   * see only committed data.
   */
  transaction<T>(work: (tx: StorageSession) => Promise<T>): Promise<T>;
  /** True while the store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
