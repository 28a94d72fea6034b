import type { DocumentIndex } from '../storage-adapter.js';
import { assertIndexValue } from './postgres-conditions.js';
import { searchText } from './postgres-search.js';

const searchTextNames = ['title', 'high', 'low', 'publicTitle', 'publicHigh', 'publicLow'] as const;

/** Throws unless every value is a string or a finite number and every search text a string. */
export function assertDocumentIndex(index: DocumentIndex): void {
  for (const { key, value } of index.values) assertIndexValue(key, value);
  for (const name of searchTextNames) {
    if (typeof index.search[name] !== 'string') throw new Error(`Invalid search text "${name}"`);
  }
}

/**
 * The filter values as three arrays of one length (key, number or null, text or null), which
 * the write statements unnest into rows: one statement whatever the number of values.
 */
export function valueArrays(index: DocumentIndex): [keys: string[], numbers: (number | null)[], texts: (string | null)[]] {
  const keys: string[] = [];
  const numbers: (number | null)[] = [];
  const texts: (string | null)[] = [];
  for (const { key, value } of index.values) {
    keys.push(key);
    numbers.push(typeof value === 'number' ? value : null);
    texts.push(typeof value === 'string' ? value : null);
  }
  return [keys, numbers, texts];
}

/** The six search texts in the order the write statements bind them. */
export function searchTexts(index: DocumentIndex): string[] {
  return searchTextNames.map((name) => searchText(index.search[name]));
}

/**
 * The tsvector columns of documents, computed from the bound texts at `$first` onwards (title,
 * high, low, then the public three): stemmed for search, unstemmed for prefixes.
 */
export function searchVectors(first: number): { columns: string; values: string[] } {
  const [title, high, low, publicTitle, publicHigh, publicLow] = Array.from({ length: 6 }, (_, n) => `$${first + n}::text`);
  const vector = (config: string, texts: string[]) => `cms_search_vector('${config}'::regconfig, ${texts.join(', ')})`;
  return {
    columns: 'search, public_search, words, public_words',
    values: [
      vector('cms_english', [title, high, low]),
      vector('cms_english', [publicTitle, publicHigh, publicLow]),
      vector('simple', [title, high, low]),
      vector('simple', [publicTitle, publicHigh, publicLow]),
    ],
  };
}
