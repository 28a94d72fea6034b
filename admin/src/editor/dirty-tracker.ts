import { onBeforeUnmount, ref } from 'vue';
import { richTextType } from '../areas/area-model';
import { normalisedRichText } from '../areas/rich-text-html';

/**
 * JSON.stringify's replacer: rich text in its normalised spelling, so the server's `<img … />`
 * and the editor's `<img …>` of the same content compare equal (rich-text-html.ts).
 */
function normalisingRichText(this: unknown, key: string, value: unknown): unknown {
  if (key !== 'content' || typeof value !== 'string') return value;
  return (this as { type?: unknown }).type === richTextType ? normalisedRichText(value) : value;
}

/** The form's state as the tracker compares it. */
function comparable(value: unknown): string {
  return JSON.stringify(value, normalisingRichText);
}

/**
 * Unsaved-changes tracking without deep watchers: the form's saved state is kept as one JSON
 * snapshot, and the current state is serialised only when it matters (leaving, saving) and once
 * after each pause in typing, never per keystroke. A 1,000-item array serialises in about a
 * millisecond, so the pause check stays cheap. Rich text is compared as content, not as
 * spelling: the same text the server and the editor write differently is no change.
 */
export function useDirtyTracker(current: () => unknown, pauseMs = 400) {
  const dirty = ref(false);
  let snapshot: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** The form's present state is the saved one. */
  function markClean(): void {
    clearTimeout(timer);
    snapshot = comparable(current());
    dirty.value = false;
  }

  /** The saved state is `json` (a save that ended while the form kept changing). */
  function markCleanAs(json: string): void {
    snapshot = comparable(JSON.parse(json));
    check();
  }

  /** Compares now; `dirty` follows. */
  function check(): boolean {
    clearTimeout(timer);
    dirty.value = snapshot !== undefined && comparable(current()) !== snapshot;
    return dirty.value;
  }

  /** Called on the form's input, change and click events: checks once the user pauses. */
  function noteActivity(): void {
    clearTimeout(timer);
    timer = setTimeout(check, pauseMs);
  }

  /** The saved state as JSON (what the form was last loaded or saved as), undefined when none. */
  function savedState(): string | undefined {
    return snapshot;
  }

  /** Nothing to compare (no document loaded). */
  function forget(): void {
    clearTimeout(timer);
    snapshot = undefined;
    dirty.value = false;
  }

  onBeforeUnmount(() => clearTimeout(timer));
  return { dirty, markClean, markCleanAs, check, noteActivity, forget, savedState };
}
