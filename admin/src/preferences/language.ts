import { showLanguage } from '../i18n';
import { languageMirror, type InterfaceLanguage } from '../i18n/language-choice';
import { preferences, savePreferences } from './preferences';

/**
 * Called before the app mounts: the first paint is in the language it opened in (this browser's
 * last, else the browser's own); then in the signed-in user's whenever the preferences take one
 * (loaded from the server, or chosen), mirrored for the next visit, as the theme is (theme.ts).
 * None chosen (`null`), or one the admin does not speak, leaves the language shown.
 */
export function followLanguage(): void {
  languageMirror.follow(() => preferences.language, showLanguage);
}

/** Changes the interface language at once and keeps the choice for the user; rejects when it could not be saved (the server's is shown again). */
export async function chooseLanguage(language: InterfaceLanguage): Promise<void> {
  showLanguage(language);
  await savePreferences({ language });
}
