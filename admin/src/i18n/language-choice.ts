/**
 * The one place that knows where the editor's choice of interface language is kept. It is in
 * localStorage for now; a per-user server preference (`language`) can replace these two
 * functions without any screen noticing.
 */
const storageKey = 'cms.admin.language';

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

export function loadLanguageChoice(): InterfaceLanguage | undefined {
  try {
    const stored = localStorage.getItem(storageKey);
    return isInterfaceLanguage(stored) ? stored : undefined;
  } catch {
    // Storage can be refused (private modes, policies): the browser's language still applies.
    return undefined;
  }
}

export function saveLanguageChoice(language: InterfaceLanguage): void {
  try {
    localStorage.setItem(storageKey, language);
  } catch {
    // Not kept across visits, but the change still applies now.
  }
}
