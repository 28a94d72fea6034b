import { toRaw } from 'vue';

/** The admin's messages to a front end's preview, and its answer (the typed client's `subscribeToLivePreview`). */
export const livePreviewMessage = 'cms:live-preview';
export const livePreviewReady = 'cms:live-preview-ready';

/** At most one message per this many milliseconds while the editor types; the last change is always sent. */
export const livePreviewThrottleMs = 100;

export interface LivePreviewChannel {
  /** A change to send: sent now, or once the throttle allows (with whatever is current then). */
  changed(): void;
  /** Stops listening and drops a pending send. */
  close(): void;
}

/**
 * Posts the unsaved document to the preview's window, only ever to the preview URL's origin
 * (never '*': the document is a draft), and answers its `ready` at once. A message counts as
 * `ready` only from that origin and from that very window: another frame or a page that
 * navigated elsewhere hears nothing.
 */
export function openLivePreviewChannel(target: { origin: string; frame: () => Window | null | undefined; document: () => unknown }): LivePreviewChannel {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastSent = 0;

  function send(): void {
    const frame = target.frame();
    if (!frame) return;
    lastSent = Date.now();
    // A plain copy: the form's reactive proxies cannot be cloned into another window.
    const document = JSON.parse(JSON.stringify(toRaw(target.document()))) as unknown;
    frame.postMessage({ type: livePreviewMessage, document }, target.origin);
  }

  function changed(): void {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      send();
    }, Math.max(0, lastSent + livePreviewThrottleMs - Date.now()));
  }

  function onMessage(event: MessageEvent): void {
    const frame = target.frame();
    if (!frame || event.origin !== target.origin || event.source !== frame) return;
    if ((event.data as { type?: unknown } | null)?.type === livePreviewReady) send();
  }

  window.addEventListener('message', onMessage);
  return {
    changed,
    close() {
      clearTimeout(timer);
      timer = undefined;
      window.removeEventListener('message', onMessage);
    },
  };
}
