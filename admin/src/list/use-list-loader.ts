import { shallowRef, watch, type WatchSource } from 'vue';
import type { ListAnswer } from '../api/types';
import { errorMessage } from '../ui/notify';

/**
 * Loads the list whenever its request changes (`key` names the request, '' for none; `load` makes
 * it). A newer
 * request aborts the one in flight, so fast typing or clicking never shows an older answer. The
 * previous answer stays on screen while the next one loads, so the layout does not jump.
 */
export function useListLoader(key: WatchSource<string>, load: (signal: AbortSignal) => Promise<ListAnswer>) {
  const answer = shallowRef<ListAnswer>();
  const loading = shallowRef(false);
  const error = shallowRef('');
  let inFlight: AbortController | undefined;

  async function reload(): Promise<void> {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    loading.value = true;
    try {
      const result = await load(controller.signal);
      if (controller.signal.aborted) return;
      answer.value = result;
      error.value = '';
    } catch (caught) {
      if (controller.signal.aborted) return;
      error.value = errorMessage(caught);
    } finally {
      if (inFlight === controller) {
        loading.value = false;
        inFlight = undefined;
      }
    }
  }

  watch(
    key,
    (current) => {
      if (current) void reload();
      else inFlight?.abort();
    },
    { immediate: true },
  );

  return { answer, loading, error, reload, abort: () => inFlight?.abort() };
}
