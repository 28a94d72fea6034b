import { nextTick } from 'vue';
import { t } from '../i18n';

/**
 * Moving one entry of an ordered list in place (area widgets, array items, related documents): the list is the
 * document's own reactive array, so only the moved rows re-render.
 */
export function moveEntry<T>(list: T[], from: number, to: number): void {
  if (to < 0 || to >= list.length || from === to) return;
  const [entry] = list.splice(from, 1);
  list.splice(to, 0, entry as T);
}

export type MoveDirection = 'up' | 'down';
/** The control a move came from: a move button, the drag handle (keyboard) or a drag (nothing to refocus). */
export type MoveControl = MoveDirection | 'handle' | 'drag';

/**
 * After a move, focus stays on the entry's control that was pressed: its drag handle
 * (`[data-drag-handle]`, the first inside the element `entryDomId`), or its button `data-move="up|down"`,
 * or the other one once the entry reaches an end of the list. A drag leaves focus where it is.
 */
export async function refocusMoveButton(entryDomId: string, control: MoveControl): Promise<void> {
  if (control === 'drag') return;
  await nextTick();
  const entry = document.getElementById(entryDomId);
  if (control === 'handle') return entry?.querySelector<HTMLButtonElement>('[data-drag-handle]')?.focus();
  const same = entry?.querySelector<HTMLButtonElement>(`[data-move="${control}"]`);
  const other = entry?.querySelector<HTMLButtonElement>(`[data-move="${control === 'up' ? 'down' : 'up'}"]`);
  (same && !same.disabled ? same : other)?.focus();
}

/**
 * Tells the form a list changed without an input, change or click of its own (a key on a drag
 * handle, a drag): the editor's form notes activity on `change` events, so the dirty check and
 * autosave follow a move as they follow typing.
 */
export function noteFormChange(from: Element): void {
  from.dispatchEvent(new Event('change', { bubbles: true }));
}

/** What the list's live region reads out after a move, which screen readers would not otherwise notice. */
export function movedAnnouncement(to: number, count: number): string {
  return t('order.moved', { position: to + 1, count });
}

/** "At most 3 items." and the like, for the help under a list with `min`/`max`; '' without limits. */
export function countLimits(min: number | undefined, max: number | undefined, noun: 'item' | 'document' | 'widget' = 'item'): string {
  const count = (n: number) => t(`limits.nouns.${noun}`, n);
  if (min && max !== undefined) return t('limits.between', { min, max: count(max) });
  if (max !== undefined) return t('limits.atMost', { max: count(max) });
  return min ? t('limits.atLeast', { min: count(min) }) : '';
}
