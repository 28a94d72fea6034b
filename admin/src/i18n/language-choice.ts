import { mirroredPreference } from '../preferences/mirror';

/**
 * The interface languages, and the one this browser showed last: the user's choice is kept on the
 * server, as the preferences' `language`, and mirrored in this browser's localStorage for the
 * sign-in page and the first paint, exactly as the theme is (preferences/mirror.ts). Following
 * and saving the user's choice is preferences/language.ts's, so that the catalogue (i18n/index.ts),
 * which the API client needs, needs nothing of the preferences.
 */

/** The languages the admin's catalogues cover, with each one's name in itself for the menu. */
export const interfaceLanguages = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'de', name: 'Deutsch' },
] as const;

export type InterfaceLanguage = (typeof interfaceLanguages)[number]['code'];

export function isInterfaceLanguage(code: unknown): code is InterfaceLanguage {
  return interfaceLanguages.some((language) => language.code === code);
}

/** The first of the browser's languages ("de-AT" counts as "de") the admin speaks, else English. */
export function browserLanguage(preferred: readonly string[]): InterfaceLanguage {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (isInterfaceLanguage(base)) return base;
  }
  return 'en';
}

/** The interface language kept for the user, mirrored in this browser. */
export const languageMirror = mirroredPreference('cms.admin.language', isInterfaceLanguage);

/** The language this browser showed last, before anyone has signed in (else the browser's applies). */
export function loadLanguageChoice(): InterfaceLanguage | undefined {
  return languageMirror.kept();
}
