/** One user's preferences as stored: the JSON text the content layer validated, and when it was last written. */
export interface StoredPreferences {
  readonly userId: string;
  /** A JSON object; its shape is the content layer's (content/preferences). */
  readonly json: string;
  /** ISO date. */
  readonly updatedAt: string;
}

/** Each user's admin preferences (theme, language, list columns): one row per user who saved any. */
export interface PreferencesStore {
  /** The user's row, or null when they saved none. */
  get(userId: string): Promise<StoredPreferences | null>;
  /** Writes the user's row in place of the one before. */
  put(preferences: StoredPreferences): Promise<void>;
  /** Removes the user's row (the user was deleted); none is no error. */
  remove(userId: string): Promise<void>;
}
