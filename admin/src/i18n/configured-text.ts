import type { InOneLanguage, LocalizedText } from '../api/types';

/** The keys whose values the configuration may give per language (a type's labels, a field's label and help, a choice's or a column's label). */
const textKeys = new Set(['label', 'pluralLabel', 'help']);

/** One configured text in `language`: that language's, else English, else the first given. */
export function textIn(text: LocalizedText, language: string): string {
  if (typeof text === 'string') return text;
  return text[language] ?? text.en ?? Object.values(text)[0] ?? '';
}

const isTextObject = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((one) => typeof one === 'string');

/**
 * A copy of the schema (or any part of it) with every configured text read in `language`; a text
 * given as one string passes through `plain` (which translates the server's built-in words).
 */
export function inLanguage<T>(value: T, language: string, plain: (text: string) => string = (text) => text): InOneLanguage<T> {
  if (Array.isArray(value)) return value.map((item) => inLanguage(item, language, plain)) as InOneLanguage<T>;
  if (typeof value !== 'object' || value === null) return value as InOneLanguage<T>;
  const entries = Object.entries(value).map(([key, inner]) => [key, configuredText(key, inner, language, plain)]);
  return Object.fromEntries(entries) as InOneLanguage<T>;
}

function configuredText(key: string, value: unknown, language: string, plain: (text: string) => string): unknown {
  if (!textKeys.has(key)) return inLanguage(value, language, plain);
  if (typeof value === 'string') return plain(value);
  return isTextObject(value) ? textIn(value, language) : inLanguage(value, language, plain);
}
