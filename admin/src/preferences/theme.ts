import { preferences, themeMirror, type Theme } from './preferences';

/**
 * Puts the chosen theme on `<html data-theme>` (styles.css holds both sets of colours); `system`
 * leaves the attribute off, so the `prefers-color-scheme` media query decides.
 */
function showTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/**
 * Called before the app mounts: the first paint already has the theme this browser last showed;
 * then the store's (the server's once loaded, the user's choice at once), mirrored for the next visit.
 */
export function followTheme(): void {
  themeMirror.follow(() => preferences.theme, showTheme);
}
