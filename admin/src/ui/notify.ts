import { reactive } from 'vue';
import { ApiError } from '../api/client';
import { t } from '../i18n';

/** Short messages after an action ("Published"), read out by screen readers (Notifications.vue). */
export interface Notice {
  readonly id: number;
  readonly text: string;
  readonly kind: 'success' | 'error';
}

export const notices = reactive<Notice[]>([]);
let nextId = 1;

export function notify(text: string, kind: Notice['kind'] = 'success', timeoutMs = 5000): void {
  // A success is the outcome of the user's next try: the errors before it no longer apply.
  if (kind === 'success') for (const notice of notices.filter((each) => each.kind === 'error')) dismiss(notice.id);
  const id = nextId++;
  notices.push({ id, text, kind });
  setTimeout(() => dismiss(id), timeoutMs);
}

export function dismiss(id: number): void {
  const index = notices.findIndex((notice) => notice.id === id);
  if (index >= 0) notices.splice(index, 1);
}

/** The message an error should show the user: the server's own message when it sent one. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.body.message || t('errors.requestFailed', { status: error.status });
  if (error instanceof Error) return error.message;
  return String(error);
}

export function notifyError(error: unknown): void {
  notify(errorMessage(error), 'error', 8000);
}
