import { mirroredPreference } from '../preferences/mirror';
import { preferences, savePreferences } from '../preferences/preferences';

/**
 * The one place that knows where the editor's choice of interface language is kept: for the user
 * on the server, as the preferences' `language` (preferences/preferences.ts), and mirrored in this
 * browser's localStorage for the sign-in page and the first paint, exactly as the theme is
 * (preferences/mirror.ts). Once the user's preferences load, their language wins.
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

const languageMirror = mirroredPreference('cms.admin.language', isInterfaceLanguage);

/** The language this browser showed last, before anyone has signed in (else the browser's applies). */
export function loadLanguageChoice(): InterfaceLanguage | undefined {
  return languageMirror.kept();
}

/**
 * Shows the signed-in user's language whenever the preferences take one (loaded from the server,
 * or chosen), and mirrors it; none chosen (`null`), or one the admin does not speak, leaves the
 * language shown. Called once the modules are loaded (main.ts), as the theme's is.
 */
export function followLanguageChoice(show: (language: InterfaceLanguage) => void): void {
  languageMirror.follow(() => preferences.language, show);
}

/** Keeps the user's choice on the server; it is shown at once, and on a refusal the server's is shown again. */
export async function saveLanguageChoice(language: InterfaceLanguage): Promise<void> {
  await savePreferences({ language });
}
