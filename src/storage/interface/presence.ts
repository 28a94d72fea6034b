/**
 * One tab's presence on one document: who has it open, in which locale, whether they edit it
 * (hold its lock) or only view it, since when, and until when the presence holds unless renewed.
 * A tab is on one document at a time. Expired entries are the caller's to skip and prune.
 */
export interface PresenceEntry {
  readonly type: string;
  readonly docId: string;
  /** '' for a type without locales. */
  readonly locale: string;
  readonly tabId: string;
  readonly userId: string;
  readonly title: string;
  readonly state: 'viewing' | 'editing';
  /** Milliseconds since the epoch: when the tab came to this document. */
  readonly since: number;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

export interface PresenceStore {
  /**
   * Puts the tab of `entry.userId` on `entry.docId`, in place of where it was; `since` is kept
   * while the tab stays on the same document (in the same locale).
   */
  announce(entry: PresenceEntry): Promise<void>;
  /** Takes the user's tab off any document. */
  leave(userId: string, tabId: string): Promise<void>;
  /** The unexpired entries of one document (in one locale), in no order. */
  presentOn(type: string, docId: string, locale: string, now: number): Promise<PresenceEntry[]>;
  /** Every entry that expires after `now`, at most `limit`, in no order. */
  present(now: number, limit: number): Promise<PresenceEntry[]>;
  /** Unexpired entries: the user's (its open tabs), everyone's, and whether the tab has one. */
  counts(userId: string, tabId: string, now: number): Promise<{ readonly mine: number; readonly all: number; readonly tabKnown: boolean }>;
  /** Removes the entries expired at `now`. */
  prune(now: number): Promise<void>;
}
