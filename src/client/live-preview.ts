/*
 * Live preview for a front end (docs/guides/live-preview.md): the page the admin's Preview pane
 * shows in an iframe hears of the draft as the editor types, before any save. No import at all:
 * its compiled file is served as a plain ES module (`GET /api/v1/@cms/live-preview.js`).
 */

/** What the admin posts to the preview: the draft as a GET of it answers, with the form's unsaved values. */
export interface LivePreviewMessage<D = Record<string, unknown>> {
  readonly type: 'cms:live-preview';
  readonly document: D;
}

/** What the preview posts to the admin once it listens: the admin answers at once with the current draft. */
export interface LivePreviewReadyMessage {
  readonly type: 'cms:live-preview-ready';
}

export interface LivePreviewOptions<D> {
  /** The admin's origin (`https://cms.example.com`): messages from any other are ignored, and `ready` goes to it alone. */
  readonly origin: string;
  /** Called with each document the admin sends. */
  readonly onChange: (document: D) => void;
  /** The window to listen on; default `window` (for tests). */
  readonly window?: Window;
}

/**
 * Listens for the drafts the admin posts, from `origin` only, and tells the admin (the parent
 * window) that the page is ready, so that it sends the current draft at once. Answers the
 * function that stops listening.
 */
export function subscribeToLivePreview<D = Record<string, unknown>>(options: LivePreviewOptions<D>): () => void {
  const target = options.window ?? window;
  const origin = new URL(options.origin).origin;
  const onMessage = (event: MessageEvent) => {
    if (event.origin !== origin || event.source !== target.parent) return;
    const data = event.data as Partial<LivePreviewMessage<D>> | null;
    if (data === null || typeof data !== 'object' || data.type !== 'cms:live-preview' || typeof data.document !== 'object' || data.document === null) return;
    options.onChange(data.document);
  };
  target.addEventListener('message', onMessage);
  // Not framed (the page opened in a tab of its own): there is no admin to tell.
  if (target.parent !== target) target.parent.postMessage({ type: 'cms:live-preview-ready' } satisfies LivePreviewReadyMessage, origin);
  return () => target.removeEventListener('message', onMessage);
}
