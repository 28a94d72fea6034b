import type { DocumentQuery, IndexValue } from './interface/document-query.js';
import type { DocumentStore } from './interface/documents.js';
import { countOf } from './locale-chain-reads.js';

// The list may leave out (archived, hidden) at most this part of its partition for its values to
// be walked: at worst (a value only those hold), the walk then costs about 1.5 times the count.
const leftOutAtMost = 1 / 4;

/**
 * Whether `query` selects a whole list: one partition of the filter values (type, locale and
 * mode known), narrowed by `archived` and `visibility` alone (no filter, search, id list, slug or
 * schedule), or a locale's part of a chain (its versions whose document has none in an earlier
 * locale: locale-chain-reads.ts). Both adapters walk the filter index for its values
 * (`compileHeldValuesQuery`), each entry tested against the whole selection.
 */
export function selectsWholeList(query: DocumentQuery): boolean {
  return query.type !== null && query.locale !== undefined && query.mode !== undefined
    && (query.conditions === undefined || query.conditions.length === 0) && query.search === undefined
    && query.ids === undefined && query.docIds === undefined && query.slug === undefined
    && query.scheduled === undefined && query.shadowedIn === undefined;
}

/**
 * `heldValues` of the adapters' reads, `count` being their kept count. The walk of the filter
 * index reads each value's entries until one belongs to a selected document, each tested by a
 * lookup (some 5 µs on SQLite), where counting (distinctValues) reads every entry of the key once
 * by a cheaper test (under 1 µs). For a whole list that is an entry or two per value, whatever its
 * size, but every entry of a value no selected document holds, which filters make common (tags
 * that go with other categories: 0.4 s at 100,000 articles against 35 ms counted). So the walk
 * serves whole lists that leave out few documents of their partition (archived, hidden ones:
 * the live list), and the others count, their cost following the documents as before.
 */
export async function heldValuesOf(
  store: Pick<DocumentStore, 'distinctValues' | 'heldValues'>,
  count: (query: DocumentQuery) => Promise<number>,
  query: DocumentQuery,
  key: string,
): Promise<IndexValue[]> {
  if (await walksFilterIndex(query, count)) return store.heldValues(query, key);
  return (await store.distinctValues(query, key)).map(({ value }) => value);
}

/** `heldValuesOfKeys` as one `heldValues` per key: for reads with no cheaper way (a transaction's, PostgreSQL's pool runs them side by side). */
export function heldValuesKeyByKey(store: Pick<DocumentStore, 'heldValues'>, query: DocumentQuery, keys: readonly string[]): Promise<IndexValue[][]> {
  return Promise.all(keys.map((key) => store.heldValues(query, key)));
}

/**
 * `heldValuesOfKeys` of an adapter's reads, as `heldValuesOf` chooses for each key: a list it
 * walks is walked key by key (an entry or two per value), and the others are counted for all
 * keys in one read (`distinctValuesOfKeys`), which finds what the query selects once.
 */
export async function heldValuesOfKeysOf(
  store: Pick<DocumentStore, 'heldValues'> & { distinctValuesOfKeys(query: DocumentQuery, keys: readonly string[]): Promise<{ value: IndexValue }[][]> },
  count: (query: DocumentQuery) => Promise<number>,
  query: DocumentQuery,
  keys: readonly string[],
): Promise<IndexValue[][]> {
  if (await walksFilterIndex(query, count)) return heldValuesKeyByKey(store, query, keys);
  return (await store.distinctValuesOfKeys(query, keys)).map((values) => values.map(({ value }) => value));
}

async function walksFilterIndex(query: DocumentQuery, count: (query: DocumentQuery) => Promise<number>): Promise<boolean> {
  return selectsWholeList(query) && (await leavesOutFew(query, count));
}

async function leavesOutFew(query: DocumentQuery, count: (query: DocumentQuery) => Promise<number>): Promise<boolean> {
  if (query.archived === undefined && query.visibility === undefined) return true;
  const partition = await count({ type: query.type, locale: query.locale, mode: query.mode });
  return partition - (await countOf(query, count)) <= partition * leftOutAtMost;
}
