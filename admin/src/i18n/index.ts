import { createI18n } from 'vue-i18n';
import en from './messages/en.json';
import es from './messages/es.json';
import fr from './messages/fr.json';
import de from './messages/de.json';
import { browserLanguage, loadLanguageChoice, type InterfaceLanguage } from './language-choice';

/**
 * The admin's interface language. Messages are compiled at run time by vue-i18n's JIT compiler,
 * which interprets an AST instead of generating code, so the admin's CSP needs no 'unsafe-eval'.
 */
const dateTimeFormats = {
  short: { timeStyle: 'short' },
  long: { dateStyle: 'medium', timeStyle: 'short' },
} as const;

const languages = ['en', 'es', 'fr', 'de'] as const;

export const i18n = createI18n({
  legacy: false,
  locale: loadLanguageChoice() ?? browserLanguage(navigator.languages ?? [navigator.language]),
  fallbackLocale: 'en',
  messages: { en, es, fr, de },
  datetimeFormats: Object.fromEntries(languages.map((language) => [language, dateTimeFormats])),
  numberFormats: Object.fromEntries(languages.map((language) => [language, { integer: { maximumFractionDigits: 0 }, percent: { style: 'percent', maximumFractionDigits: 0 } }])),
});

/** The catalogue lookup for scripts outside components (notifications, helpers). */
export const t = i18n.global.t;

/**
 * The server names its built-in fields, types and choices in English (`Title`, `Visibility`,
 * `Login Required`): the catalogue's `builtIn` words, by their English text.
 */
const builtInKeys: ReadonlyMap<string, string> = new Map(Object.entries(en.builtIn).map(([key, english]) => [english, `builtIn.${key}`]));

/** A configured text as the interface shows it: a built-in English word translated, any other as given. */
export function builtInText(text: string): string {
  const key = builtInKeys.get(text);
  return key ? t(key) : text;
}

export function currentLanguage(): InterfaceLanguage {
  return i18n.global.locale.value as InterfaceLanguage;
}

/** A date and time in the interface language ("2 déc. 2026, 20:33"). */
export function formatDateTime(value: string | number | Date, style: keyof typeof dateTimeFormats = 'long'): string {
  return i18n.global.d(new Date(value), style);
}

/** Puts the interface in `language`: the catalogue's words and `<html lang>`. */
export function showLanguage(language: InterfaceLanguage): void {
  i18n.global.locale.value = language;
  document.documentElement.lang = language;
}

showLanguage(currentLanguage());
