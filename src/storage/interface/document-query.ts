import type { Mode } from '../../core/ids.js';

/* What a document query selects, filters and sorts by: the words of `DocumentStore.find`. */

export type SortDirection = 1 | -1;

/** A scalar the filter index holds: strings compare as text, numbers as numbers. */
export type IndexValue = string | number;

/** Columns every adapter indexes; sorting on any other property is allowed but not indexed. */
export const indexedSortFields = ['updatedAt', 'createdAt', 'titleSortified', 'slug', 'title', '_id'] as const;

/** Where a keyset page starts: after the document with these sort values and this `_id`. */
export interface KeysetBound {
  readonly values: readonly (IndexValue | boolean | null)[];
  readonly id: string;
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
  /**
   * Locales tried in order (a fallback chain), in place of `locale`: of each document, only its
   * version in the first of them it has is selected, among the versions of the same type and
   * mode that `archived` and `visibility` select (the other conditions apply to that version).
   * With `locale` as well: that locale's part of the chain alone (locale-chain-reads.ts).
   */
  readonly localeChain?: readonly string[];
  /**
   * With `locale` and `mode`: only the versions whose document has one in any of these locales as
   * well (same type and mode, selected by `archived` and `visibility` too): those a chain's earlier
   * locales shadow (locale-chain-reads.ts `countOf`).
   */
  readonly shadowedIn?: readonly string[];
  /** Mode of the versions wanted; `null` selects non-localized documents. Undefined: any. */
  readonly mode?: Mode | null;
  readonly slug?: string;
  /** Undefined: archived and live alike. */
  readonly archived?: boolean;
  /** Only documents whose `visibility` is one of these (documents without one count as `public`). */
  readonly visibility?: readonly string[];
  /**
   * Only documents whose version set in the version's locale has a schedule (`ScheduleStore`)
   * in this status (`any`: pending or failed).
   */
  readonly scheduled?: 'pending' | 'failed' | 'any';
  /** Every condition must hold. */
  readonly conditions?: readonly FilterCondition[];
  readonly search?: TextSearch;
  /**
   * Order: `sort` as given; `relevance`: best search match first (needs `search`), then `sort`;
   * `ids`: the order of `ids` (or else `docIds`) as given, then `sort`.
   */
  readonly order?: 'sort' | 'relevance' | 'ids';
  readonly sort?: readonly { readonly field: string; readonly direction: SortDirection }[];
  /**
   * A keyset bound: only the documents that come after this place in the query's order (its
   * `sort`, then `_id` as the tie-break the adapters add), so that a deep page costs what the
   * first does and a page boundary holds under concurrent inserts and deletes. `values` are the
   * sort fields' values of the last document read, in the sort's order (null where it had none),
   * but for `_id`, whose value is `id`: the `_id` of that document. Missing values sort below
   * every other, as the adapters' ORDER BY places them. With `order: 'relevance'` the rank is not
   * carried: the adapter ranks the document `id` in the same statement (a text rank weighs the
   * whole index, which moves with every write), and a bound whose document is gone or no longer
   * matches has nothing after it. Not with `order: 'ids'`.
   */
  readonly after?: KeysetBound;
  readonly skip?: number;
  readonly limit?: number;
  /**
   * False: the versions' `relatedReverseIds` are not read (each named version's is then an empty
   * array), for a reader that only looks at their fields and never writes them back.
   */
  readonly reverseIds?: boolean;
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
