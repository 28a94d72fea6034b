import { notifyNotSaved, preferences, savePreferences, type ListPreferences } from '../preferences/preferences';

/*
 * What the list keeps per user and type between visits: the columns shown and the last sort
 * (`title`, `-updatedAt`). Kept for the user on the server, as the preferences' `lists`
 * (preferences/preferences.ts), so they follow the user to another browser. No localStorage
 * mirror: a list only shows once the session, and with it the preferences, has loaded.
 */

export type { ListPreferences };

/** The user's columns and sort for `type`; none kept: the type's own (an empty object). */
export function listPreferences(type: string): ListPreferences {
  return preferences.lists[type] ?? {};
}

/** Shows `change` at once and keeps it for the user; a refusal is told, and the server's kept ones come back. */
export function saveListPreferences(type: string, change: ListPreferences): void {
  savePreferences({ lists: { [type]: change } }).catch(notifyNotSaved);
}
