import type { PresenceEntry } from './interface/presence.js';

/** The columns of `presence`, in both stores, and the entry each row is. */
export const presenceColumns = 'type, doc_id, locale, tab_id, user_id, title, state, since, expires_at';

export interface PresenceRow {
  type: string;
  doc_id: string;
  locale: string;
  tab_id: string;
  user_id: string;
  title: string;
  state: string;
  /** PostgreSQL's bigint arrives as text: milliseconds since the epoch fit a double exactly. */
  since: number | string;
  expires_at: number | string;
}

export function presenceEntryOf(row: PresenceRow): PresenceEntry {
  return {
    type: row.type,
    docId: row.doc_id,
    locale: row.locale,
    tabId: row.tab_id,
    userId: row.user_id,
    title: row.title,
    state: row.state === 'editing' ? 'editing' : 'viewing',
    since: Number(row.since),
    expiresAt: Number(row.expires_at),
  };
}

/** What both stores' count of entries answers (mine: the user's; tab: the tab's own, 0 or 1). */
export interface PresenceCountRow {
  mine: number;
  all: number;
  tab: number;
}

/** The values of `presenceColumns` for an insert, in order. */
export function presenceValues(entry: PresenceEntry): unknown[] {
  return [entry.type, entry.docId, entry.locale, entry.tabId, entry.userId, entry.title, entry.state, entry.since, entry.expiresAt];
}

/** A tab's second announce moves it; it keeps `since` while it stays on its document (both stores speak this upsert). */
export const presenceUpsert = `ON CONFLICT (user_id, tab_id) DO UPDATE SET type = excluded.type, doc_id = excluded.doc_id,
  locale = excluded.locale, title = excluded.title, state = excluded.state, expires_at = excluded.expires_at,
  since = CASE WHEN presence.type = excluded.type AND presence.doc_id = excluded.doc_id AND presence.locale = excluded.locale
    THEN presence.since ELSE excluded.since END`;
