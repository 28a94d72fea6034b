import { errorMessage } from '../ui/notify';
import { t } from '../i18n';
import type { BulkAction } from './BulkBar.vue';

export interface BulkOutcome<T> {
  readonly done: T[];
  readonly failed: { readonly item: T; readonly message: string }[];
}

/**
 * Runs one call per item, at most `concurrency` at a time (a bulk action on 100 documents must
 * not open 100 connections at once), and collects what succeeded and what the server refused.
 */
export async function runBulk<T>(items: readonly T[], call: (item: T) => Promise<unknown>, concurrency = 4): Promise<BulkOutcome<T>> {
  const done: T[] = [];
  const failed: { item: T; message: string }[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await call(item);
        done.push(item);
      } catch (error) {
        failed.push({ item, message: errorMessage(error) });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { done, failed };
}

/**
 * "Archived 3 articles." or "Archived 2 of 3 articles. 1 failed: “Title” (forbidden)": each of the
 * server's messages once, with the titles it refused (the first three).
 */
export function bulkSummary<T>(outcome: BulkOutcome<T>, words: { action: BulkAction; label: string; pluralLabel: string }, titleOf: (item: T) => string): string {
  const total = outcome.done.length + outcome.failed.length;
  const noun = total === 1 ? words.label.toLowerCase() : words.pluralLabel.toLowerCase();
  if (outcome.failed.length === 0) return t(`bulk.done.${words.action}`, { count: total, noun });
  const titlesByMessage = new Map<string, string[]>();
  for (const { item, message } of outcome.failed) titlesByMessage.set(message, [...(titlesByMessage.get(message) ?? []), titleOf(item)]);
  const reasons = [...titlesByMessage].map(([message, titles]) => {
    const named = titles.slice(0, 3).map((title) => `“${title}”`).join(', ');
    return `${titles.length > 3 ? t('bulk.andMore', { titles: named, n: titles.length - 3 }) : named} (${message})`;
  });
  const partly = t(`bulk.partly.${words.action}`, { done: outcome.done.length, count: total, noun });
  return `${partly} ${t('bulk.failed', { reasons: reasons.join('; ') }, outcome.failed.length)}`;
}
