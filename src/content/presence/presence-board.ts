import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { PresenceEntry, StorageAdapter } from '../../storage/storage-adapter.js';
import { ForbiddenError, InvalidRequestError, NotFoundError, RetryLaterError } from '../../errors/app-error.js';
import { canViewDrafts } from '../access/permissions.js';

/** One person on a document, as other editors are told: tabs of one user count once. */
export interface PresentEditor {
  readonly _id: string;
  readonly title: string;
  /** `editing` while one of their tabs holds the document's lock. */
  readonly state: 'viewing' | 'editing';
  /** ISO: when their first tab still there came to the document. */
  readonly since: string;
}

/** Who is on one document (in one locale) now; `present` empty once the last one left. */
export interface PresenceAnnouncement {
  readonly type: string;
  readonly cmsDocId: string;
  readonly cmsLocale: string | null;
  readonly present: readonly PresentEditor[];
}

export interface PresenceLimits {
  /** How long an announce holds unless renewed (a tab that closed without leaving). */
  readonly ttlMs: number;
  /** Open tabs of one user with a presence. */
  readonly perCaller: number;
  /** Presences of everyone together. */
  readonly entries: number;
  /** How often the board reads what other processes' editors announced. */
  readonly pollMs: number;
}

type PresenceListener = (announcements: readonly PresenceAnnouncement[]) => void;

const tabIdPattern = /^[A-Za-z0-9_-]{8,64}$/;
const docIdPattern = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Who has which document open (issue 34): each editor's tab announces the document it shows
 * (`POST /api/v1/@cms/presence`), renews it while open and leaves it when it closes; an announce
 * not renewed lapses after `ttlMs`. The entries live in the store, so every process sees every
 * editor; this board reads them all (one row per open tab, at most `entries`) every `pollMs`
 * while any stream listens, and at once after an announce of its own (reads asked for meanwhile
 * make one more), and tells its listeners each document whose people changed. An announce's
 * answer reads its own document only.
 */
export class PresenceBoard {
  readonly #config: AppConfig;
  readonly #storage: Pick<StorageAdapter, 'presence' | 'transaction'>;
  readonly #limits: PresenceLimits;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<PresenceListener>();
  /** The last announcement of each document someone is on, by `documentKey`. */
  #board = new Map<string, PresenceAnnouncement>();
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #again = false;

  constructor(config: AppConfig, storage: Pick<StorageAdapter, 'presence' | 'transaction'>, limits: PresenceLimits, onError: (error: unknown) => void) {
    this.#config = config;
    this.#storage = storage;
    this.#limits = limits;
    this.#onError = onError;
  }

  /**
   * Puts the caller's tab on a document (`{ type, cmsDocId, cmsLocale?, state, tabId }`) until
   * `ttlMs` from now; answers who else is on it and when to renew.
   */
  async announce(principal: Principal, body: Readonly<Record<string, unknown>>): Promise<{ present: PresentEditor[]; expiresIn: number }> {
    const userId = presentUser(principal);
    const entry = this.#entryOf(principal, userId, body);
    await this.#storage.transaction(async (tx) => {
      await tx.presence.prune(entry.since);
      const counts = await tx.presence.counts(userId, entry.tabId, entry.since);
      if (!counts.tabKnown && counts.mine >= this.#limits.perCaller) throw tooMany('presencePerCaller', 'for this user');
      if (!counts.tabKnown && counts.all >= this.#limits.entries) throw tooMany('presenceEntries', 'on this server');
      await tx.presence.announce(entry);
    });
    // The answer reads this document alone; the board is read (all of it) only for streams that listen.
    this.#wake();
    const here = boardOf(await this.#storage.presence.presentOn(entry.type, entry.docId, entry.locale, Date.now())).values().next().value;
    return { present: (here?.present ?? []).filter((editor) => editor._id !== userId), expiresIn: this.#limits.ttlMs };
  }

  /** Takes the caller's tab off its document. */
  async leave(principal: Principal, tabId: string): Promise<void> {
    const userId = presentUser(principal);
    if (!tabIdPattern.test(tabId)) throw new InvalidRequestError('tabId must be 8 to 64 letters, digits, _ or -', { path: 'tabId' });
    await this.#storage.presence.leave(userId, tabId);
    this.#wake();
  }

  /** Streams of this process hear of an announce at once rather than at the next poll; without any, nothing is read. */
  #wake(): void {
    if (this.#listeners.size > 0) this.#read().catch(this.#onError);
  }

  /** Hands `listener` every change of who is where, from now on; answers who is where now, and how to stop. */
  async subscribe(listener: PresenceListener): Promise<{ current: readonly PresenceAnnouncement[]; stop: () => void }> {
    if (this.#listeners.size === 0) await this.#read();
    this.#listeners.add(listener);
    this.#timer ??= setInterval(() => void this.#read().catch(this.#onError), this.#limits.pollMs);
    const stop = () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.close();
    };
    return { current: [...this.#board.values()], stop };
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #entryOf(principal: Principal, userId: string, body: Readonly<Record<string, unknown>>): PresenceEntry {
    const { type: typeName, cmsDocId, cmsLocale, state, tabId } = body;
    if (typeof typeName !== 'string') throw new InvalidRequestError('type must name a piece type', { path: 'type' });
    const type = this.#config.pieceTypes.get(typeName);
    if (!type || !canViewDrafts(principal, type)) throw new NotFoundError(`No piece type "${typeName}" whose drafts you may read`, { path: 'type' });
    if (typeof cmsDocId !== 'string' || !docIdPattern.test(cmsDocId)) throw new InvalidRequestError('cmsDocId must be a document id', { path: 'cmsDocId' });
    if (type.options.localized) {
      if (typeof cmsLocale !== 'string' || !this.#config.locales.has(cmsLocale)) throw new InvalidRequestError('cmsLocale must name a configured locale', { path: 'cmsLocale' });
    } else if (cmsLocale !== undefined && cmsLocale !== null) throw new InvalidRequestError(`${typeName} has no locales`, { path: 'cmsLocale' });
    if (state !== 'viewing' && state !== 'editing') throw new InvalidRequestError('state must be "viewing" or "editing"', { path: 'state' });
    if (typeof tabId !== 'string' || !tabIdPattern.test(tabId)) throw new InvalidRequestError('tabId must be 8 to 64 letters, digits, _ or -', { path: 'tabId' });
    const now = Date.now();
    return {
      type: typeName,
      docId: cmsDocId,
      locale: type.options.localized ? (cmsLocale as string) : '',
      tabId,
      userId,
      title: principal.title || principal.username || userId,
      state,
      since: now,
      expiresAt: now + this.#limits.ttlMs,
    };
  }

  /** Reads the board afresh; a read asked for while one runs runs once after it. */
  #read(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      try {
        do {
          this.#again = false;
          this.#replaceBoard(await this.#storage.presence.present(Date.now(), this.#limits.entries));
        } while (this.#again);
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  #replaceBoard(entries: readonly PresenceEntry[]): void {
    const next = boardOf(entries);
    const changed: PresenceAnnouncement[] = [];
    for (const [key, announcement] of next) {
      const before = this.#board.get(key);
      if (!before || JSON.stringify(before.present) !== JSON.stringify(announcement.present)) changed.push(announcement);
    }
    for (const [key, gone] of this.#board) if (!next.has(key)) changed.push({ ...gone, present: [] });
    this.#board = next;
    if (changed.length === 0) return;
    for (const listener of this.#listeners) listener(changed);
  }
}

function presentUser(principal: Principal): string {
  if (principal.kind !== 'user' || principal.userId === null) throw new ForbiddenError('Presence is for signed-in users');
  return principal.userId;
}

function tooMany(limit: string, where: string): RetryLaterError {
  return new RetryLaterError('toomany', `Too many open documents ${where}`, 5, { limit });
}

function documentKey(type: string, docId: string, locale: string): string {
  return `${type}\u0000${docId}\u0000${locale}`;
}

/** The entries by document, each user once (editing if any tab edits, since their earliest tab), in order of arrival. */
function boardOf(entries: readonly PresenceEntry[]): Map<string, PresenceAnnouncement> {
  const byDocument = new Map<string, { first: PresenceEntry; users: Map<string, PresentEditor> }>();
  for (const entry of entries) {
    const key = documentKey(entry.type, entry.docId, entry.locale);
    let document = byDocument.get(key);
    if (!document) byDocument.set(key, (document = { first: entry, users: new Map() }));
    const known = document.users.get(entry.userId);
    const since = new Date(known ? Math.min(Date.parse(known.since), entry.since) : entry.since).toISOString();
    const state = known?.state === 'editing' ? 'editing' : entry.state;
    document.users.set(entry.userId, { _id: entry.userId, title: entry.title, state, since });
  }
  const board = new Map<string, PresenceAnnouncement>();
  for (const [key, { first, users }] of byDocument) {
    const present = [...users.values()].sort((a, b) => a.since.localeCompare(b.since) || a._id.localeCompare(b._id));
    board.set(key, { type: first.type, cmsDocId: first.docId, cmsLocale: first.locale === '' ? null : first.locale, present });
  }
  return board;
}
