import { watch } from 'vue';

/**
 * A preference kept for the user on the server (preferences.ts) and mirrored in this browser's
 * localStorage, so that the first paint and the sign-in page show it before anyone has signed in.
 * Once the user's preferences load, the server's value wins and the mirror follows it. The theme
 * (theme.ts) and the interface language (i18n/language-choice.ts) are both kept this way.
 */
export interface MirroredPreference<T extends string> {
  /** What this browser showed last, if it kept anything the admin still knows. */
  kept(): T | undefined;
  /**
   * Shows `current()` now and whenever it changes, and mirrors each new value it shows. A value
   * `accepts` refuses (`null`: the user chose none) leaves what is shown, and the mirror, as they are.
   */
  follow(current: () => unknown, show: (value: T) => void): void;
}

export function mirroredPreference<T extends string>(key: string, accepts: (value: unknown) => value is T): MirroredPreference<T> {
  function kept(): T | undefined {
    try {
      const stored = localStorage.getItem(key);
      return accepts(stored) ? stored : undefined;
    } catch {
      // Storage can be refused (private modes, policies): the defaults apply until sign-in.
      return undefined;
    }
  }

  function mirror(value: T): void {
    try {
      localStorage.setItem(key, value);
    } catch {
      // Not kept for the next first paint, but shown now and kept on the server.
    }
  }

  function follow(current: () => unknown, show: (value: T) => void): void {
    // What the store holds now is shown at once, and is the mirror's (or the default): nothing to keep yet.
    const now = current();
    if (accepts(now)) show(now);
    // Synchronous, so a value is shown as soon as the store takes it (the schema is read in that language).
    watch(current, (value) => {
      if (!accepts(value)) return;
      show(value);
      mirror(value);
    }, { flush: 'sync' });
  }

  return { kept, follow };
}
