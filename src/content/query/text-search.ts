import type { TextSearch } from '../../storage/storage-adapter.js';

const maxWords = 32;

/**
 * Reads a search box the way the original's text search does: bare words (any may match,
 * ranked by how well), `"quoted phrases"` that must appear, `-words` that must not.
 * Autocomplete treats every word as the beginning of a word, and wants them all.
 */
export function toTextSearch(text: string, options: { prefix: boolean; publicOnly: boolean }): TextSearch {
  const phrases: string[][] = [];
  const rest = text.replace(/"([^"]*)"/g, (_quoted, inner: string) => {
    const words = splitWords(inner);
    if (words.length > 0 && !options.prefix) phrases.push(words);
    return ' ';
  });
  const tokens = splitWords(rest);
  const without = options.prefix ? [] : tokens.filter((t) => t.startsWith('-') && t.length > 1).map((t) => t.slice(1));
  const words = tokens.filter((t) => options.prefix || !t.startsWith('-')).map((t) => t.replace(/^-+/, ''));
  return {
    words: words.filter(Boolean).slice(0, maxWords),
    match: options.prefix ? 'all' : 'any',
    prefix: options.prefix,
    phrases: phrases.slice(0, maxWords),
    without: without.slice(0, maxWords),
    texts: options.publicOnly ? 'public' : 'all',
  };
}

/** Control characters (NUL included, which ends an FTS5 string) separate words like spaces. */
function splitWords(text: string): string[] {
  return text.split(/[\s\p{Cc}]+/u).filter(Boolean);
}
