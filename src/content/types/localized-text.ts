import { Type } from '@sinclair/typebox';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';

/**
 * A text of the configuration people read in the admin (a type's label, a field's label or help):
 * one string, or one per language (`{ en: 'Recipe', de: 'Rezept' }`). The schema the admin reads
 * carries it as configured, and the admin shows its own language, else English, else the first;
 * everything else on the server (OpenAPI, `cms types`, error messages) uses `defaultText`.
 */
export type LocalizedText = string | Readonly<Record<string, string>>;

/** `en`, `de`, `pt-BR`: the language codes a per-language text is keyed by. */
const languageCode = '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$';
const shapeMessage = 'must be a non-empty string or an object of language code (such as "en") to non-empty string';

/** The same rule for TypeBox-checked options (module-schema.ts). */
export const localizedTextSchema = Type.Union(
  [
    Type.String({ minLength: 1 }),
    Type.Record(Type.String({ pattern: languageCode }), Type.String({ minLength: 1 }), { minProperties: 1, additionalProperties: false }),
  ],
  { errorMessage: shapeMessage },
);

export function checkLocalizedText(value: unknown, path: string): LocalizedText {
  if (typeof value === 'string' && value !== '') return value;
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    const wellFormed = entries.length > 0 && entries.every(([code, text]) => new RegExp(languageCode).test(code) && typeof text === 'string' && text !== '');
    if (wellFormed) return Object.fromEntries(entries) as Record<string, string>;
  }
  throw new ConfigError(path, shapeMessage);
}

/** The text where one string is needed: itself, or its English, else its first language. */
export function defaultText(text: LocalizedText): string {
  if (typeof text === 'string') return text;
  return text.en ?? Object.values(text)[0]!;
}
