import type { TextSearch } from '../storage-adapter.js';

type SearchTable = 'document_search' | 'document_words';

/** One FTS5 table and the MATCH expression a search binds on it. */
export interface SearchMatch {
  readonly table: SearchTable;
  readonly match: string;
}

/**
 * What a search matches: a document matching any of `matches` (one table, or for autocomplete
 * two), and how it ranks.
 */
export interface CompiledSearch {
  readonly matches: readonly [SearchMatch, ...SearchMatch[]];
  /**
   * With several matches, the rows they select as a search joins them (`matchedAlias`): each
   * `rowid` once, with its `rank` when the relevance reads it; binds each match in order.
   */
  readonly rows?: string;
  /**
   * Best match first in ascending order, and the values it binds. With one match it may be bm25
   * of its table, which must then be joined; with several, the joined rows' rank.
   */
  readonly relevance: { readonly sql: string; readonly params: readonly string[] };
}

/** What a search of several tables calls the rows it joins. */
export const matchedAlias = 'matched';

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

function bm25Weights(table: SearchTable): string {
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
  const expression = searchExpression(search);
  if (expression === null) return null;
  if (search.prefix) return compileAutocomplete(search, expression);
  const table = 'document_search';
  return {
    matches: [{ table, match: inColumns(table, search.texts, expression) }],
    relevance: search.texts === 'public' ? publicRelevance(table, expression) : { sql: `bm25(${table}, ${bm25Weights(table)})`, params: [] },
  };
}

/**
 * Autocomplete: every word begins a word of the title or high texts (the unstemmed table: the
 * stemmed one cannot answer prefixes, see migration 2), or every word is a whole word of any
 * text, rich text included, as `search` reads it. A document matching both ways adds both bm25
 * ranks; public texts rank by where they match, as public searches do.
 */
function compileAutocomplete(search: TextSearch, beginnings: string): CompiledSearch {
  const whole = searchExpression({ ...search, prefix: false })!;
  const sources: [SearchTable, string][] = [['document_words', beginnings], ['document_search', whole]];
  const matches = sources.map(([table, expression]) => ({ table, match: inColumns(table, search.texts, expression) }));
  if (search.texts === 'public') {
    const weighted = sources.flatMap(([table, expression]) =>
      tableColumns[table].public.map(([column, weight]) => ({ table, column, weight, expression })),
    );
    return { matches: [matches[0]!, matches[1]!], rows: unionOfRowids(matches), relevance: columnRelevance(weighted) };
  }
  const ranked = matches.map(({ table }) => `SELECT rowid, bm25(${table}, ${bm25Weights(table)}) AS rank FROM ${table} WHERE ${table} MATCH ?`);
  return {
    matches: [matches[0]!, matches[1]!],
    rows: `SELECT rowid, SUM(rank) AS rank FROM (${ranked.join(' UNION ALL ')}) GROUP BY rowid`,
    relevance: { sql: `${matchedAlias}.rank`, params: [] },
  };
}

/** The rowids matching any of the searches, each bound in order. */
export function unionOfRowids(matches: readonly SearchMatch[]): string {
  return matches.map(({ table }) => `SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).join(' UNION ');
}

/** The FTS5 expression of a search, words left out included; null when nothing searchable remains. */
function searchExpression(search: TextSearch): string | null {
  const positive = positiveTerms(search);
  if (positive.length === 0) return null;
  const expression = positive.join(' AND ');
  const without = search.without.filter(hasToken).map(ftsString);
  return without.length > 0 ? `(${expression}) NOT (${without.join(' OR ')})` : expression;
}

function inColumns(table: SearchTable, texts: TextSearch['texts'], expression: string): string {
  return `{${tableColumns[table][texts].map(([name]) => name).join(' ')}} : (${expression})`;
}

/**
 * bm25 (negative, lower is better) counts matches in the searched columns only, but divides by
 * the length of the whole row, hidden texts included: a long hidden text would push a document
 * down a public search. The public texts rank instead by where the search matches: the weights
 * of the public columns it matches in, highest first. Each column is one subquery, run once.
 */
function publicRelevance(table: SearchTable, expression: string): CompiledSearch['relevance'] {
  return columnRelevance(tableColumns[table].public.map(([column, weight]) => ({ table, column, weight, expression })));
}

/** The weights of the columns a search matches in, highest first: one subquery per column. */
function columnRelevance(columns: readonly { table: SearchTable; column: string; weight: number; expression: string }[]): CompiledSearch['relevance'] {
  const terms = columns.map(({ table, weight }) => `(documents.seq IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)) * ${weight}`);
  return { sql: `-(${terms.join(' + ')})`, params: columns.map(({ column, expression }) => `{${column}} : (${expression})`) };
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
