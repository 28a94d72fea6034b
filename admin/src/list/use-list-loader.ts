import { shallowRef, watch, type WatchSource } from 'vue';
import type { ListAnswer } from '../api/types';
import { ApiError } from '../api/client';
import { errorMessage } from '../ui/notify';

/** The server's message, with the parameter it refused when it names one ("tags: … is not one of the choices"). */
function listErrorMessage(error: unknown): string {
  const details = error instanceof ApiError ? (error.body.data?.errors ?? []) : [];
  const detail = details.map((item) => (item.path ? `${item.path}: ${item.message}` : item.message)).join('; ');
  return detail ? `${errorMessage(error)} (${detail})` : errorMessage(error);
}

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
      error.value = listErrorMessage(caught);
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
