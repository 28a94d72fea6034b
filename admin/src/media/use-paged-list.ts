import { onBeforeUnmount, ref, shallowRef } from 'vue';
import { errorMessage } from '../ui/notify';

export type PageFetcher<T> = (options: { page: number; search: string }, signal: AbortSignal) => Promise<{ pages: number; results: T[] }>;

/**
 * One page of a searchable list (the media grid, the users table): one request per view, a newer
 * view cancelling the request of the one before, and a search sent when typing pauses.
 */
export function usePagedList<T>(fetchPage: PageFetcher<T>) {
  const search = ref('');
  const page = ref(1);
  const pages = ref(0);
  const results = shallowRef<T[]>([]);
  const loading = ref(false);
  const error = ref('');
  let controller: AbortController | undefined;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;

  async function load(): Promise<void> {
    controller?.abort();
    const current = (controller = new AbortController());
    loading.value = true;
    error.value = '';
    try {
      const answer = await fetchPage({ page: page.value, search: search.value }, current.signal);
      results.value = answer.results;
      pages.value = answer.pages;
    } catch (failure) {
      if (!current.signal.aborted) error.value = errorMessage(failure);
    } finally {
      if (controller === current) loading.value = false;
    }
  }

  function goTo(target: number): Promise<void> {
    clearTimeout(searchTimer);
    page.value = target;
    return load();
  }

  /** For the search input's `input` event: one request when typing pauses, not one per keystroke. */
  function searchSoon(): void {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void goTo(1), 300);
  }

  onBeforeUnmount(() => {
    controller?.abort();
    clearTimeout(searchTimer);
  });

  return { search, page, pages, results, loading, error, load, goTo, searchSoon };
}
