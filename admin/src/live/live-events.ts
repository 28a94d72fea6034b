import { reactive } from 'vue';
import { apiBase } from '../api/client';

/** What the change stream says of one committed change (`data:` of its event). */
export interface ChangeEvent {
  readonly action: string;
  readonly type: string;
  readonly _id: string;
  readonly cmsDocId: string;
  readonly cmsLocale: string | null;
  readonly cmsMode: string | null;
  readonly updatedAt: string | null;
  readonly updatedBy?: { _id?: string | null; title?: string | null; username?: string | null };
}

/** One person on a document, as `event: presence` names them. */
export interface PresentEditor {
  readonly _id: string;
  readonly title: string;
  readonly state: 'viewing' | 'editing';
  readonly since: string;
}

type ChangeListener = (change: ChangeEvent) => void;

const actions = ['insert', 'update', 'publish', 'unpublish', 'archive', 'restore', 'delete', 'localize'];
const listeners = new Set<ChangeListener>();
let source: EventSource | undefined;

/**
 * Who is on which document, by `presenceKey`, as the stream last told it. Emptied whenever the
 * stream (re)opens: the server then tells every document someone is on.
 */
export const presence = reactive(new Map<string, readonly PresentEditor[]>());

export function presenceKey(type: string, docId: string, locale: string | null | undefined): string {
  return `${type}\u0000${docId}\u0000${locale ?? ''}`;
}

/**
 * The tab's one change stream (`GET /api/v1/@cms/events?presence=true`), opened by the first
 * screen that listens and kept while the admin is signed in; the browser reconnects it with
 * `Last-Event-ID` by itself.
 */
export function openLiveEvents(): void {
  if (source) return;
  source = new EventSource(`${apiBase}/@cms/events?presence=true`, { withCredentials: true });
  source.addEventListener('open', () => presence.clear());
  const tell = (event: MessageEvent<string>) => {
    const change = { action: event.type, ...(JSON.parse(event.data) as Omit<ChangeEvent, 'action'>) };
    for (const listener of listeners) listener(change);
  };
  for (const action of actions) source.addEventListener(action, tell);
  source.addEventListener('presence', (event: MessageEvent<string>) => {
    const { type, cmsDocId, cmsLocale, present } = JSON.parse(event.data) as { type: string; cmsDocId: string; cmsLocale: string | null; present: PresentEditor[] };
    const key = presenceKey(type, cmsDocId, cmsLocale);
    if (present.length === 0) presence.delete(key);
    else presence.set(key, present);
  });
}

/** Ends the stream (signing out): the next listener opens a new one, as whoever is signed in then. */
export function closeLiveEvents(): void {
  source?.close();
  source = undefined;
  presence.clear();
}

/** Calls `listener` for each committed change the stream tells of, until the answer is called. */
export function onChange(listener: ChangeListener): () => void {
  openLiveEvents();
  listeners.add(listener);
  return () => listeners.delete(listener);
}
