import { reactive } from 'vue';
import { request } from '../api/client';
import { t } from '../i18n';
import { errorMessage, notify } from '../ui/notify';
import { mirroredPreference } from './mirror';

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

export function isTheme(value: unknown): value is Theme {
  return themes.some((theme) => theme === value);
}

/** The theme this browser showed last, for the next first paint before anyone has signed in (theme.ts shows it). */
export const themeMirror = mirroredPreference('cms.theme', isTheme);

/**
 * The preferences every screen reads (the theme, the interface language, list columns): the
 * server's once loaded; until then, and for no one signed in, the theme this browser last showed
 * and no language (the interface keeps the one it opened in, i18n/language-choice.ts).
 */
export const preferences = reactive<Preferences & { loaded: boolean }>({ theme: themeMirror.kept() ?? 'system', language: null, lists: {}, loaded: false });

function take(answer: Preferences): void {
  preferences.theme = answer.theme;
  preferences.language = answer.language;
  preferences.lists = answer.lists;
  preferences.loaded = true;
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

/** No one signed in: the language and lists go back to the defaults; the theme and the language stay as shown (the mirrors'). */
export function forgetPreferences(): void {
  preferences.language = null;
  preferences.lists = {};
  preferences.loaded = false;
}

/** The lists after `patch`, merged as the server merges them: a type's keys into those kept, `null` removing the type's entry. */
function listsAfter(lists: Readonly<Record<string, ListPreferences>>, patch: PreferencesPatch['lists']): Record<string, ListPreferences> {
  const next = { ...lists };
  for (const [type, entry] of Object.entries(patch ?? {})) {
    if (entry === null) delete next[type];
    else next[type] = { ...next[type], ...entry };
  }
  return next;
}

/** One save at a time, in the order made, so the server merges them in that order. */
let saving: Promise<unknown> = Promise.resolve();
/** The saves asked for so far: only the last one's answer is shown, earlier ones would undo later changes shown at once. */
let savesAsked = 0;

/** Shows `patch` at once and saves it; on a refusal, shows what the server keeps and rethrows. */
export async function savePreferences(patch: PreferencesPatch): Promise<void> {
  if (patch.theme !== undefined) preferences.theme = patch.theme;
  if (patch.language !== undefined) preferences.language = patch.language;
  if (patch.lists !== undefined) preferences.lists = listsAfter(preferences.lists, patch.lists);
  const save = ++savesAsked;
  const sent = saving.then(() => request<Preferences>('/@cms/preferences', { method: 'PATCH', body: patch }));
  saving = sent.catch(() => undefined);
  try {
    const answer = await sent;
    if (save === savesAsked) take(answer);
  } catch (error) {
    if (save === savesAsked) await loadPreferences();
    throw error;
  }
}

/** The notice for a choice (theme, language) the server did not keep: what is shown went back to the server's. */
export function notifyNotSaved(error: unknown): void {
  notify(t('preferences.notSaved', { reason: errorMessage(error) }), 'error', 8000);
}
