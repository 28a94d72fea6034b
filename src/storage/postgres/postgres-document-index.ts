import type { DocumentIndex } from '../storage-adapter.js';
import { assertIndexValue } from './postgres-conditions.js';
import { searchText } from './postgres-search.js';
import { storable } from './statements.js';

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
 * the write statements unnest into rows: one statement whatever the number of values. A value a
 * document holds twice is written once, as the `all` filter counts on.
 */
export function valueArrays(index: DocumentIndex): [keys: string[], numbers: (number | null)[], texts: (string | null)[]] {
  const keys: string[] = [];
  const numbers: (number | null)[] = [];
  const texts: (string | null)[] = [];
  const seen = new Set<string>();
  for (const { key, value } of index.values) {
    // Stored texts have U+0000 replaced (see storable): two values that differ only there are one.
    const identity = JSON.stringify([key, typeof value, storable(value)]);
    if (seen.has(identity)) continue;
    seen.add(identity);
    keys.push(key);
    numbers.push(typeof value === 'number' ? value : null);
    texts.push(typeof value === 'string' ? value : null);
  }
  return [keys, numbers, texts];
}

// A tsvector holds at most 1 MiB of lexemes and positions: a few bytes for each word, never more
// than about 2.3 times the text the word came from. The texts of one vector (title, high, low)
// are cut to 400,000 bytes together. Past 16,383 words PostgreSQL no longer tells positions
// apart anyway.
const searchTextBytes: Readonly<Record<(typeof searchTextNames)[number], number>> = {
  title: 25_000,
  high: 125_000,
  low: 250_000,
  publicTitle: 25_000,
  publicHigh: 125_000,
  publicLow: 250_000,
};

/** The six search texts in the order the write statements bind them. */
export function searchTexts(index: DocumentIndex): string[] {
  return searchTextNames.map((name) => truncateUtf8(searchText(index.search[name]), searchTextBytes[name]));
}

/** The longest beginning of `text` that takes at most `maxBytes` bytes in UTF-8. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A character takes at most 3 bytes per UTF-16 unit: shorter texts need no look.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back to the first byte of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * The tsvector columns of documents, computed from the bound texts at `$first` onwards (title,
 * high, low, then the public three): stemmed for search, unstemmed (no low texts) for prefixes.
 */
export function searchVectors(first: number): { columns: string; values: string[] } {
  const [title, high, low, publicTitle, publicHigh, publicLow] = Array.from({ length: 6 }, (_, n) => `$${first + n}::text`);
  const vector = (config: string, texts: string[]) => `cms_search_vector('${config}'::regconfig, ${texts.join(', ')})`;
  return {
    columns: 'search, public_search, words, public_words',
    values: [
      vector('cms_english', [title, high, low]),
      vector('cms_english', [publicTitle, publicHigh, publicLow]),
      // Autocomplete completes the words of the title and high texts (facts 2.6).
      vector('simple', [title, high, "''"]),
      vector('simple', [publicTitle, publicHigh, "''"]),
    ],
  };
}
