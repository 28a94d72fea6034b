import type { Mode } from '../../core/ids.js';
import type { DocumentQuery, IndexValue } from './document-query.js';

/** A document version as stored: the common properties plus whatever the piece type's fields wrote. */
export interface StoredDocument {
  _id: string;
  cmsDocId: string;
  /** The content layer's, kept as they are: the store takes a version's locale and mode from its `DocumentIndex`. */
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
  /**
   * The `cmsDocId`s of the documents whose relationships name this version, in the order they
   * were added. Stored apart from the version, a row per id: adding or taking away one
   * (`relateBack`) costs the same however many there are, and writes none of the others. Absent
   * on a version no relationship ever named; an empty array once all of them let go.
   */
  relatedReverseIds?: string[];
  [property: string]: unknown;
}

/** One version whose reverse ids gain (`present`) or lose the id `relateBack` is given. */
export interface ReverseIdChange {
  readonly versionId: string;
  readonly present: boolean;
}

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

/**
 * What the content layer derives from a document version for the store to select it by: where it
 * lives (its locale and mode, null for a non-localized type's), its filter values and its search
 * texts. Written with it.
 */
export interface DocumentIndex {
  readonly locale: string | null;
  readonly mode: Mode | null;
  readonly values: readonly IndexEntry[];
  readonly search: SearchTexts;
}

/** The document versions of every type, with their filter values and search texts. */
export interface DocumentStore {
  find(query: DocumentQuery): Promise<StoredDocument[]>;
  count(query: DocumentQuery): Promise<number>;
  /**
   * Distinct index values of `key` among the documents `query` matches (sort, skip and limit
   * ignored), each with the number of those documents holding it, ordered by value.
   */
  distinctValues(query: DocumentQuery, key: string): Promise<{ value: IndexValue; count: number }[]>;
  /**
   * The values `distinctValues` answers, in its order, without their counts (a list's `choices`):
   * a store may then find each value with one document holding it, whatever the number of
   * documents, rather than count them all.
   */
  heldValues(query: DocumentQuery, key: string): Promise<IndexValue[]>;
  /**
   * `heldValues` of each of `keys` over the one query, in the order of `keys` (a list's
   * `choices`, several fields at once): a store may then find what the query selects once for
   * all of them, where a read per key would select it again each time (a filter or a search over
   * 100,000 documents, some 30 ms on SQLite, for every field offered).
   */
  heldValuesOfKeys(query: DocumentQuery, keys: readonly string[]): Promise<IndexValue[][]>;
  /**
   * Stores the document with its filter values and search texts, replacing nothing (its
   * `relatedReverseIds` as given).
   * Throws ConflictError (data.constraint `id` or `slug`) when the `_id` or the slug is taken.
   */
  insert(doc: StoredDocument, index: DocumentIndex): Promise<void>;
  /**
   * Replaces the stored version with the same `_id` and the same `type` (a version of another
   * type is left alone), its index entries and search texts with it; false when there is none.
   * Slug conflicts as insert. Without `index` the stored locale, mode, entries and texts stay:
   * for a change to no field they come from (a draft's `modified` flag, say). A version never
   * moves to another locale or mode (its `_id` names them). Its `relatedReverseIds` become the
   * ones given (none when absent), as every other property.
   */
  update(doc: StoredDocument, index?: DocumentIndex): Promise<boolean>;
  /**
   * Adds `sourceDocId` to the `relatedReverseIds` of the versions of `type` each change names
   * (appended, when not there yet) or takes it away, and moves their `cacheInvalidatedAt` to
   * `stamp` when that is later; the rest of them (`updatedAt`, filter values, search texts)
   * stays. Versions not stored are skipped. Each change is an indexed insert or delete plus a
   * write of the version without its reverse ids: the cost does not grow with how many there are.
   */
  relateBack(type: string, sourceDocId: string, changes: readonly ReverseIdChange[], stamp: string): Promise<void>;
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
  /**
   * Inside a transaction: holds the documents with these `cmsDocId`s from now to its end, as
   * `TransactionOptions.lock` does from its start, for writes that learn only on the way which
   * other documents they write back (the relationships' bookkeeping). Holds taken this late may
   * meet another transaction's in the other order: the store then runs one of them again.
   * Outside a transaction it holds nothing.
   */
  hold(docIds: readonly string[]): Promise<void>;
}
