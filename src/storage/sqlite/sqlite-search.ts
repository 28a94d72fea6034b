import type { TextSearch } from '../storage-adapter.js';

/** The FTS5 table a search reads, the MATCH expression it binds, and how it ranks. */
export interface CompiledSearch {
  readonly table: 'document_search' | 'document_words';
  readonly match: string;
  /** Best match first in ascending order, and the values it binds. */
  readonly relevance: { readonly sql: string; readonly params: readonly string[] };
}

/**
 * Each table's columns as a search reads them: all texts or the public ones, each with the weight
 * of a match in it (title outweighs high, high low). The prefix table holds no low texts
 * (migration 9). bm25 takes a weight per column in table order and counts matches in the columns
 * searched only, so the public columns' weights take no effect there.
 */
const tableColumns = {
  document_search: {
    all: [['title', 100], ['high', 10], ['low', 2]],
    public: [['public_title', 100], ['public_high', 10], ['public_low', 2]],
  },
  document_words: {
    all: [['title', 100], ['high', 10]],
    public: [['public_title', 100], ['public_high', 10]],
  },
} as const;

function bm25Weights(table: CompiledSearch['table']): string {
  const { all, public: shown } = tableColumns[table];
  return [...all, ...shown].map(([, weight]) => weight).join(', ');
}

// What the unicode61 tokenizer keeps by default (categories L*, N* and Co); anything else
// separates tokens. A word without one of these yields no token at all.
const tokenCharacter = /[\p{L}\p{N}\p{Co}]/u;

/**
 * Turns a TextSearch into an FTS5 query. Every user word goes in as an FTS5 string, so no text
 * can inject query syntax; words that would tokenize to nothing are dropped. Null when nothing
 * searchable remains: such a search matches no document.
 */
export function compileSearch(search: TextSearch): CompiledSearch | null {
  const positive = positiveTerms(search);
  if (positive.length === 0) return null;
  let expression = positive.join(' AND ');
  const without = search.without.filter(hasToken).map(ftsString);
  if (without.length > 0) expression = `(${expression}) NOT (${without.join(' OR ')})`;
  // The stemmed table cannot answer prefixes (see migration 2); the other one holds words as written.
  const table = search.prefix ? 'document_words' : 'document_search';
  const columns = tableColumns[table][search.texts];
  return {
    table,
    match: `{${columns.map(([name]) => name).join(' ')}} : (${expression})`,
    relevance: search.texts === 'public' ? publicRelevance(table, expression) : { sql: `bm25(${table}, ${bm25Weights(table)})`, params: [] },
  };
}

/**
 * bm25 (negative, lower is better) counts matches in the searched columns only, but divides by
 * the length of the whole row, hidden texts included: a long hidden text would push a document
 * down a public search. The public texts rank instead by where the search matches: the weights
 * of the public columns it matches in, highest first. Each column is one subquery, run once.
 */
function publicRelevance(table: CompiledSearch['table'], expression: string): CompiledSearch['relevance'] {
  const columns = tableColumns[table].public;
  const terms = columns.map(([, weight]) => `(documents.seq IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)) * ${weight}`);
  return { sql: `-(${terms.join(' + ')})`, params: columns.map(([column]) => `{${column}} : (${expression})`) };
}

/** The words (joined as `match` says) and each phrase: all of them must match. */
function positiveTerms(search: TextSearch): string[] {
  const terms: string[] = [];
  const words = search.words.filter(hasToken).map((word) => ftsString(word) + (search.prefix ? '*' : ''));
  if (words.length > 0) terms.push(`(${words.join(search.match === 'any' ? ' OR ' : ' AND ')})`);
  for (const phrase of search.phrases) {
    const phraseWords = phrase.filter(hasToken);
    // One string of several words is an FTS5 phrase: the words in this order, side by side.
    if (phraseWords.length > 0) terms.push(ftsString(phraseWords.join(' ')));
  }
  return terms;
}

function hasToken(word: string): boolean {
  return tokenCharacter.test(word);
}

/** An FTS5 string literal: inside double quotes everything is text, and `""` is a quote. */
function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
