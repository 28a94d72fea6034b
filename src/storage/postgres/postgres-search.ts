import type { TextSearch } from '../storage-adapter.js';
import type { Params } from './statements.js';

/** The tsvector column a search reads and the tsquery expression (placeholders only) it matches. */
export interface CompiledSearch {
  readonly column: 'search' | 'public_search' | 'words' | 'public_words';
  readonly query: string;
}

// ts_rank weights, in the order D, C, B, A: low (C) 0.02, high (B) 0.1, title (A) 1. Repeats of a
// word add less and less (at most about 1.6 times one), so a title beats any body and high any low.
const rankWeights = `'{0, 0.02, 0.1, 1}'::float4[]`;

// The same characters the SQLite adapter counts as making a word: a word without one of these
// would yield no lexeme at all.
const tokenCharacter = /[\p{L}\p{N}\p{Co}]/u;

/**
 * Turns a TextSearch into a tsquery expression. Every user word is a bound parameter turned into
 * a query by phraseto_tsquery, which reads it as plain text (several tokens in one word make a
 * phrase), so no text can inject query syntax; words that would yield nothing are dropped. Null
 * when nothing searchable remains: such a search matches no document.
 */
export function compileSearch(search: TextSearch, params: Params): CompiledSearch | null {
  // Stemmed words cannot answer prefixes ("runni" is not the beginning of the stem "run"): a
  // prefix search reads the unstemmed vectors, phrases and words left out included.
  const config = search.prefix ? `'simple'::regconfig` : `'cms_english'::regconfig`;
  const term = (text: string): string => `phraseto_tsquery(${config}, ${params.add(text, 'text')})`;

  const positive: string[] = [];
  const words = searchable(search.words).map((word) => (search.prefix ? `cms_prefix_query(${term(word)})` : term(word)));
  if (words.length > 0) positive.push(`(${words.join(search.match === 'any' ? ' || ' : ' && ')})`);
  for (const phrase of search.phrases) {
    const phraseWords = searchable(phrase);
    if (phraseWords.length > 0) positive.push(term(phraseWords.join(' ')));
  }
  if (positive.length === 0) return null;
  let query = positive.join(' && ');
  const without = searchable(search.without).map(term);
  if (without.length > 0) query = `(${query}) && !!(${without.join(' || ')})`;
  const texts = search.texts === 'public' ? 'public_' : '';
  return { column: `${texts}${search.prefix ? 'words' : 'search'}`, query: `(${query})` };
}

/** Best match first: title outweighs high, high low. */
export function relevanceExpression(search: CompiledSearch): string {
  return `ts_rank(${rankWeights}, documents.${search.column}, ${search.query})`;
}

/**
 * A text as it is indexed and searched: accents removed (the SQLite adapter's tokenizer does the
 * same), and U+0000, which PostgreSQL text cannot hold, made a space.
 */
export function searchText(text: string): string {
  // NFD splits "é" into "e" and a combining mark; dropping the marks leaves the letter.
  const folded = text.normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC');
  return folded.includes('\u0000') ? folded.replaceAll('\u0000', ' ') : folded;
}

function searchable(words: readonly string[]): string[] {
  return words.map(searchText).filter((word) => tokenCharacter.test(word));
}
