import { onBeforeUnmount, onMounted } from 'vue';

/** As the original's admin: a pause this long in typing saves the draft. */
export const autosaveDelayMs = 3000;

export interface AutosaveTarget {
  /** Whether autosave applies now (an existing draft this tab may change, no action running). */
  readonly enabled: () => boolean;
  /** Saves the form's changes, if any. */
  readonly save: () => Promise<unknown>;
}

/**
 * Saves the draft a few seconds after the user stops typing, so a closed tab or a crash loses
 * at most those seconds; when the connection comes back after a failed save, it tries again.
 */
export function useAutosave(target: AutosaveTarget, delayMs = autosaveDelayMs) {
  let timer: ReturnType<typeof setTimeout> | undefined;

  function fire(): void {
    timer = undefined;
    if (target.enabled()) void target.save().catch(() => undefined);
  }

  /** Called on the form's input, change and click events: the delay starts again. */
  function noteActivity(): void {
    clearTimeout(timer);
    timer = setTimeout(fire, delayMs);
  }

  function cancel(): void {
    clearTimeout(timer);
    timer = undefined;
  }

  const onOnline = () => fire();
  onMounted(() => window.addEventListener('online', onOnline));
  onBeforeUnmount(() => {
    window.removeEventListener('online', onOnline);
    cancel();
  });

  return { noteActivity, cancel };
}
