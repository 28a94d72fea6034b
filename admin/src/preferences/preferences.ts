import { reactive } from 'vue';
import { request } from '../api/client';

export const themes = ['system', 'light', 'dark'] as const;
export type Theme = (typeof themes)[number];

/** One list's settings for one piece type, as the server keeps them. */
export interface ListPreferences {
  readonly columns?: readonly string[];
  readonly sort?: string;
  readonly perPage?: number;
}

/** The signed-in user's preferences, as `GET /api/v1/@cms/preferences` answers them. */
export interface Preferences {
  theme: Theme;
  language: string | null;
  lists: Record<string, ListPreferences>;
}

/** What a save may change: in `lists`, a type's keys merge into those kept and `null` removes the type's entry. */
export interface PreferencesPatch {
  readonly theme?: Theme;
  readonly language?: string | null;
  readonly lists?: Readonly<Record<string, ListPreferences | null>>;
}

/** Where the theme is mirrored for the next first paint, before anyone has signed in. */
const themeKey = 'cms.theme';

function mirroredTheme(): Theme {
  try {
    const kept = localStorage.getItem(themeKey);
    return themes.find((theme) => theme === kept) ?? 'system';
  } catch {
    return 'system';
  }
}

/**
 * The preferences every screen reads (the theme, and later the language and list columns): the
 * server's once loaded; until then, and for no one signed in, the theme this browser last showed.
 */
export const preferences = reactive<Preferences & { loaded: boolean }>({ theme: mirroredTheme(), language: null, lists: {}, loaded: false });

function take(answer: Preferences): void {
  preferences.theme = answer.theme;
  preferences.language = answer.language;
  preferences.lists = answer.lists;
  preferences.loaded = true;
  try {
    localStorage.setItem(themeKey, answer.theme);
  } catch {
    // Storage refused (private mode): only the next first paint follows the system.
  }
}

/**
 * Reads the signed-in user's preferences. No user (403), or no answer, keeps what is shown: a
 * preference is not worth keeping anyone out of the admin.
 */
export async function loadPreferences(): Promise<void> {
  try {
    take(await request<Preferences>('/@cms/preferences'));
  } catch {
    preferences.loaded = false;
  }
}

/** No one signed in: the language and lists go back to the defaults; the theme stays as shown (the mirror's). */
export function forgetPreferences(): void {
  preferences.language = null;
  preferences.lists = {};
  preferences.loaded = false;
}

/** Shows `patch` at once and saves it; on a refusal, shows what the server keeps and rethrows. */
export async function savePreferences(patch: PreferencesPatch): Promise<void> {
  if (patch.theme !== undefined) preferences.theme = patch.theme;
  try {
    take(await request<Preferences>('/@cms/preferences', { method: 'PATCH', body: patch }));
  } catch (error) {
    await loadPreferences();
    throw error;
  }
}
