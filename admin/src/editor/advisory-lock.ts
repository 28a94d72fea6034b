import { onBeforeUnmount, onMounted, ref, watch } from 'vue';
import { ApiError } from '../api/client';
import { t } from '../i18n';
import { patchPiece } from '../api/pieces';
import type { PieceDocument } from '../api/types';
import { notify } from '../ui/notify';

/**
 * The original's advisory lock on the edited document: taken when the editor opens it, refreshed
 * while the tab shows it (the server lets a lock go 15 s after its last refresh), released when
 * the editor leaves it. Saves carry it too, so a save from a tab that lost it is refused (409)
 * instead of overwriting the editor who took over.
 */
export type LockState =
  /** Not asked for: a new document, or one the user may not change. */
  | { readonly kind: 'none' }
  | { readonly kind: 'held' }
  /** Someone else had it when this tab opened the document: read only until they leave or it is taken over. */
  | { readonly kind: 'other'; readonly holder: LockHolder }
  /** Taken over while this tab edited: read only, the form keeps what the user typed. */
  | { readonly kind: 'lost'; readonly holder: LockHolder };

/** Who holds a lock: `me` when it is the same user in another tab. */
export interface LockHolder {
  readonly me: boolean;
  readonly name: string;
}

/** Refresh well inside the server's 15 s, so one late timer does not lose the lock. */
const refreshMs = 5000;

let thisTab: string | undefined;

/** One random id per browser tab; sessionStorage keeps it across reloads of the tab. */
export function tabId(): string {
  if (thisTab) return thisTab;
  const key = 'cms-admin-tab-id';
  thisTab = sessionStorage.getItem(key) ?? crypto.randomUUID();
  sessionStorage.setItem(key, thisTab);
  return thisTab;
}

/** The holder a `409 locked` refusal names; undefined for any other error. */
export function lockHolder(error: unknown): LockHolder | undefined {
  if (!(error instanceof ApiError) || error.status !== 409 || (error.body.name as string) !== 'locked') return undefined;
  const data = error.body.data ?? {};
  if (data.me === true) return { me: true, name: t('lock.you') };
  const name = [data.title, data.username].find((value): value is string => typeof value === 'string' && value !== '');
  return { me: false, name: name ?? t('lock.anotherUser') };
}

/** "Ada is editing this document", as the read-only editor says it. */
export function editingMessage(holder: LockHolder): string {
  return holder.me ? t('lock.youEditing') : t('lock.otherEditing', { name: holder.name });
}

export function tookOverMessage(holder: LockHolder): string {
  return holder.me ? t('lock.youTookOver') : t('lock.otherTookOver', { name: holder.name });
}

export interface LockTarget {
  readonly typeName: string;
  /** The `_id` of the version to lock (the draft), or undefined when there is none to lock. */
  readonly versionId: () => string | undefined;
  /** Whether this user may change it (no lock is taken to read). */
  readonly editable: () => boolean;
  /** Called when this tab gets the lock of a document it was only reading: the form should reload. */
  readonly onFreed: () => void;
  /** Each refresh answers the version as stored: a change saved meanwhile by whoever took the lock shows there. */
  readonly onRefreshed: (stored: PieceDocument) => void;
  /** Each refresh refused while reading only: whoever holds the lock may have saved since. */
  readonly onStillElsewhere: () => void;
}

export function useAdvisoryLock(target: LockTarget) {
  const state = ref<LockState>({ kind: 'none' });
  let lockedId: string | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  /** The body part every save carries: the lock stays this tab's, or the save is refused. */
  const saveField = () => ({ _advisoryLock: { tabId: tabId(), lock: true } });

  async function ask(force: boolean): Promise<void> {
    const id = lockedId;
    if (!id) return;
    const was = state.value;
    try {
      const stored = await patchPiece(target.typeName, id, { _advisoryLock: { tabId: tabId(), lock: true, ...(force ? { force: true } : {}) } });
      if (id !== lockedId) return;
      state.value = { kind: 'held' };
      if (was.kind === 'other' && !force) target.onFreed();
      else if (was.kind === 'held') target.onRefreshed(stored);
    } catch (error) {
      if (id !== lockedId) return;
      const holder = lockHolder(error);
      // Offline or a passing refusal: the next refresh tries again; the server keeps the lock 15 s.
      if (!holder) return;
      const reading = was.kind === 'other';
      refused(holder);
      if (reading && !force) target.onStillElsewhere();
    }
  }

  /** Someone else has the lock: reading only, and told at once when it was taken from this tab. */
  function refused(holder: LockHolder): void {
    if (state.value.kind === 'held' || state.value.kind === 'lost') {
      if (state.value.kind === 'held') notify(t('lock.readOnlyNow', { message: tookOverMessage(holder) }), 'error', 10000);
      state.value = { kind: 'lost', holder };
    } else {
      state.value = { kind: 'other', holder };
    }
  }

  /** Takes the lock from whoever has it (the "Take over" and "Take back control" buttons). */
  const takeOver = () => ask(true);

  /** Refreshes the lock held, and keeps asking for one another tab holds (it may be freed). */
  function refresh(): void {
    if (state.value.kind === 'held' || state.value.kind === 'other') void ask(false);
  }

  function start(id: string): void {
    lockedId = id;
    state.value = { kind: 'none' };
    void ask(false);
    clearInterval(timer);
    timer = setInterval(refresh, refreshMs);
  }

  /** Best effort: a request that outlives the page; the lock expires on its own if it never arrives. */
  function release(): void {
    clearInterval(timer);
    timer = undefined;
    const id = lockedId;
    const held = state.value.kind === 'held';
    lockedId = undefined;
    state.value = { kind: 'none' };
    if (id && held) void patchPiece(target.typeName, id, { _advisoryLock: { tabId: tabId(), lock: false } }, { keepalive: true }).catch(() => undefined);
  }

  watch(
    () => (target.editable() ? target.versionId() : undefined),
    (id) => {
      if (id === lockedId) return;
      release();
      if (id) start(id);
    },
    { immediate: true },
  );

  /** A save refused with 409 locked: the lock was taken over. Answers whether that was the refusal. */
  function noteRefusal(error: unknown): boolean {
    const holder = lockHolder(error);
    if (holder) refused(holder);
    return !!holder;
  }

  // The page goes (closed, reloaded, or into the back-forward cache): free the lock for others.
  const onPageHide = () => {
    const id = target.editable() ? target.versionId() : undefined;
    release();
    pendingRestart = id;
  };
  let pendingRestart: string | undefined;
  // Back from the back-forward cache: the same document is open again.
  const onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted && pendingRestart) start(pendingRestart);
  };
  // A background tab's timers are slowed down; coming back refreshes at once.
  const onVisible = () => {
    if (document.visibilityState === 'visible') refresh();
  };
  onMounted(() => {
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
    document.addEventListener('visibilitychange', onVisible);
  });
  onBeforeUnmount(() => {
    window.removeEventListener('pagehide', onPageHide);
    window.removeEventListener('pageshow', onPageShow);
    document.removeEventListener('visibilitychange', onVisible);
    release();
  });

  return { state, saveField, takeOver, release, noteRefusal };
}

export type AdvisoryLock = ReturnType<typeof useAdvisoryLock>;
