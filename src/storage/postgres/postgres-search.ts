import type { TextSearch } from '../storage-adapter.js';
import type { Params } from './statements.js';

type SearchColumn = 'search' | 'public_search' | 'words' | 'public_words';

/** A tsvector column and the tsquery expression (placeholders only) it matches. */
interface ColumnQuery {
  readonly column: SearchColumn;
  readonly query: string;
}

/** What a search matches: a document matching any of `matches` (one column, or for autocomplete two). */
export interface CompiledSearch {
  readonly matches: readonly [ColumnQuery, ...ColumnQuery[]];
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
  const texts = search.texts === 'public' ? 'public_' : '';
  const whole = tsQuery(search, false, params);
  if (whole === null) return null;
  if (!search.prefix) return { matches: [{ column: `${texts}search`, query: whole }] };
  // Autocomplete: every word begins a word of the title or high texts (the unstemmed vectors:
  // "runni" is not the beginning of the stem "run"), or every word is a whole word of any text,
  // rich text included, as `search` reads it.
  return { matches: [{ column: `${texts}words`, query: tsQuery(search, true, params)! }, { column: `${texts}search`, query: whole }] };
}

/** The tsquery of a search (`prefix`: of word beginnings, unstemmed); null when nothing searchable remains. */
function tsQuery(search: TextSearch, prefix: boolean, params: Params): string | null {
  const config = prefix ? `'simple'::regconfig` : `'cms_english'::regconfig`;
  const term = (text: string): string => `phraseto_tsquery(${config}, ${params.add(text, 'text')})`;
  const positive: string[] = [];
  const words = searchable(search.words).map((word) => (prefix ? `cms_prefix_query(${term(word)})` : term(word)));
  if (words.length > 0) positive.push(`(${words.join(search.match === 'any' ? ' || ' : ' && ')})`);
  for (const phrase of search.phrases) {
    const phraseWords = searchable(phrase);
    if (phraseWords.length > 0) positive.push(term(phraseWords.join(' ')));
  }
  if (positive.length === 0) return null;
  let query = positive.join(' && ');
  const without = searchable(search.without).map(term);
  if (without.length > 0) query = `(${query}) && !!(${without.join(' || ')})`;
  return `(${query})`;
}

/** The condition a document matching the search meets. */
export function searchCondition(search: CompiledSearch): string {
  const conditions = search.matches.map(({ column, query }) => `documents.${column} @@ ${query}`);
  return conditions.length === 1 ? conditions[0]! : `(${conditions.join(' OR ')})`;
}

/** Best match first: title outweighs high, high low; an autocomplete adds the ranks of both its matches. */
export function relevanceExpression(search: CompiledSearch): string {
  return search.matches.map(({ column, query }) => `ts_rank(${rankWeights}, documents.${column}, ${query})`).join(' + ');
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
