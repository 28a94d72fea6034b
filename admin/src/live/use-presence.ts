import { computed, onBeforeUnmount, onMounted, watch } from 'vue';
import { request } from '../api/client';
import { tabId } from '../editor/advisory-lock';
import { session } from '../session';
import { openLiveEvents, presence, presenceKey, type PresentEditor } from './live-events';

/** Where this tab is: a document of a type, in a locale (null: a type without locales), viewed or edited. */
export interface PresenceTarget {
  readonly type: string;
  readonly docId: () => string | undefined;
  readonly locale: () => string | null;
  readonly editing: () => boolean;
}

/**
 * Announces the document this tab shows (`POST /api/v1/@cms/presence`), again a third of the way
 * to its expiry and whenever it changes, and leaves it on the way out, the tab's close included
 * (`keepalive`). Answers the others on the document, as the change stream tells them.
 */
export function usePresence(target: PresenceTarget) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let announced: string | undefined;
  const where = computed(() => {
    const docId = target.docId();
    return docId ? { type: target.type, cmsDocId: docId, cmsLocale: target.locale(), state: target.editing() ? 'editing' : 'viewing' } : undefined;
  });

  async function announce(): Promise<void> {
    clearTimeout(timer);
    const body = where.value;
    if (!body) return leave();
    announced = body.cmsDocId;
    try {
      const { expiresIn } = await request<{ expiresIn: number }>('/@cms/presence', { method: 'POST', body: { ...body, tabId: tabId() } });
      if (announced === body.cmsDocId) timer = setTimeout(() => void announce(), expiresIn / 3);
    } catch {
      // Presence is a courtesy: a refusal (too many tabs, signed out) leaves the editor as it was; try again later.
      timer = setTimeout(() => void announce(), 10_000);
    }
  }

  function leave(): void {
    clearTimeout(timer);
    if (announced === undefined) return;
    announced = undefined;
    void request<void>(`/@cms/presence/${encodeURIComponent(tabId())}`, { method: 'DELETE', keepalive: true }).catch(() => undefined);
  }

  const others = computed<readonly PresentEditor[]>(() => {
    const docId = target.docId();
    if (!docId) return [];
    return (presence.get(presenceKey(target.type, docId, target.locale())) ?? []).filter((editor) => editor._id !== session.user?._id);
  });

  watch(where, (now, before) => {
    if (JSON.stringify(now) !== JSON.stringify(before)) void announce();
  });
  const onPageHide = () => leave();
  // Back from the cache of a navigation (or a phone's tab switch): the presence lapsed meanwhile.
  const onPageShow = (event: PageTransitionEvent) => event.persisted && void announce();
  onMounted(() => {
    openLiveEvents();
    void announce();
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
  });
  onBeforeUnmount(() => {
    leave();
    window.removeEventListener('pagehide', onPageHide);
    window.removeEventListener('pageshow', onPageShow);
  });
  return { others };
}
