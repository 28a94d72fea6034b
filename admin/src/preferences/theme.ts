import { watch } from 'vue';
import { preferences, type Theme } from './preferences';

/**
 * Puts the chosen theme on `<html data-theme>` (styles.css holds both sets of colours); `system`
 * leaves the attribute off, so the `prefers-color-scheme` media query decides.
 */
function showTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/** Called before the app mounts: the first paint already has the theme this browser last showed. */
export function followTheme(): void {
  watch(() => preferences.theme, showTheme, { immediate: true });
}
