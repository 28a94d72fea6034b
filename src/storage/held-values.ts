import type { DocumentQuery, IndexValue } from './interface/document-query.js';
import type { DocumentStore } from './interface/documents.js';

// A filtered list's values are walked when its filters keep at least this part of the list.
const sparseFilter = 32;

/**
 * `heldValues` of the adapters' reads, `count` being their kept count. Both adapters walk the
 * filter index one value at a time (their `compileHeldValuesQuery`): each value's entries are read
 * until one belongs to a selected document, each tested by lookups. For the whole list that is an
 * entry or two per value, whatever its size. Under filters it is about `total / matched` entries
 * per value, and every entry of the key when the filters keep few documents, where counting
 * (distinctValues) reads every entry once by a cheaper test. So the walk serves the whole list and
 * filters that keep a `1 / sparseFilter` of it at least (a category, a tag); narrower ones count.
 */
export async function heldValuesOf(
  store: Pick<DocumentStore, 'distinctValues' | 'heldValues'>,
  count: (query: DocumentQuery) => Promise<number>,
  query: DocumentQuery,
  key: string,
): Promise<IndexValue[]> {
  if (await sparselyFiltered(query, count)) return (await store.distinctValues(query, key)).map(({ value }) => value);
  return store.heldValues(query, key);
}

async function sparselyFiltered(query: DocumentQuery, count: (query: DocumentQuery) => Promise<number>): Promise<boolean> {
  if (query.conditions === undefined || query.conditions.length === 0) return false;
  const total = await count({ ...query, conditions: undefined });
  return (await count(query)) * sparseFilter < total;
}
