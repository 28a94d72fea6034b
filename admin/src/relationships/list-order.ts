import { nextTick } from 'vue';
import { t } from '../i18n';

/**
 * Moving one entry of an ordered list in place (area widgets, related documents): the list is the
 * document's own reactive array, so only the moved rows re-render.
 */
export function moveEntry<T>(list: T[], from: number, to: number): void {
  if (to < 0 || to >= list.length || from === to) return;
  const [entry] = list.splice(from, 1);
  list.splice(to, 0, entry as T);
}

export type MoveDirection = 'up' | 'down';

/**
 * After a move, focus stays on the entry's button that was pressed (`data-move="up|down"` inside the
 * element `entryDomId`), or goes to the other one once the entry reaches an end of the list.
 */
export async function refocusMoveButton(entryDomId: string, direction: MoveDirection): Promise<void> {
  await nextTick();
  const entry = document.getElementById(entryDomId);
  const same = entry?.querySelector<HTMLButtonElement>(`[data-move="${direction}"]`);
  const other = entry?.querySelector<HTMLButtonElement>(`[data-move="${direction === 'up' ? 'down' : 'up'}"]`);
  (same && !same.disabled ? same : other)?.focus();
}

/** "At most 3 items." and the like, for the help under a list with `min`/`max`; '' without limits. */
export function countLimits(min: number | undefined, max: number | undefined, noun: 'item' | 'document' | 'widget' = 'item'): string {
  const count = (n: number) => t(`limits.nouns.${noun}`, n);
  if (min && max !== undefined) return t('limits.between', { min, max: count(max) });
  if (max !== undefined) return t('limits.atMost', { max: count(max) });
  return min ? t('limits.atLeast', { min: count(min) }) : '';
}
