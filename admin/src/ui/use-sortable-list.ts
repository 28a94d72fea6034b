import { onBeforeUnmount, watch, type Ref } from 'vue';
import type Sortable from 'sortablejs';
import { noteFormChange } from '../relationships/list-order';
import { useFormReadOnly } from '../fields/form-read-only';

/**
 * Reordering a list by dragging its rows' handles (`[data-drag-handle]`), with SortableJS. The
 * library is fetched on the first list that shows, never with the admin's first load. Sortable
 * moves DOM nodes itself; the row is put back where Vue rendered it and `move(from, to)` changes
 * the model, so the new order comes from the model as any other edit (dirty check, autosave, the
 * conflict comparison). A read-only form drags nothing (its disabled fieldset stops the handles'
 * keys, not a drag).
 *
 * Each list is its own group that neither gives nor takes rows: a widget never leaves its area, so
 * a nested area cannot receive a widget its own list of allowed widgets would refuse. Answers the
 * list's id, for its rows' handles (`data-drag-handle="<id>"`), so that an outer list does not
 * start a drag from a nested list's handle. The id is the component's own, not made from the field's
 * path: a nested area's path changes when its widget moves, its Sortable does not.
 */
export function useSortableList(list: Ref<HTMLElement | undefined>, move: (from: number, to: number) => void): string {
  const listId = `sortable-${++listCount}`;
  let sortable: Sortable | undefined;
  let disposed = false;
  const readOnly = useFormReadOnly();

  async function attach(element: HTMLElement) {
    const { default: SortableJs } = await import('sortablejs');
    if (disposed || list.value !== element) return;
    sortable = SortableJs.create(element, {
      group: { name: listId, pull: false, put: false },
      disabled: readOnly.value,
      handle: `[data-drag-handle="${CSS.escape(listId)}"]`,
      // Sortable's own syntax: the list's direct <li> children.
      draggable: '>li',
      animation: 120,
      // Pointer events rather than native HTML drag and drop: the same with mouse, pen and touch, and
      // no drag image of a whole widget with its editor.
      forceFallback: true,
      onEnd: (event) => {
        const from = event.oldDraggableIndex;
        const to = event.newDraggableIndex;
        if (from === undefined || to === undefined || from === to) return;
        putBack(event.from, event.item, from);
        move(from, to);
        noteFormChange(event.from);
      },
    });
  }

  watch(list, (element, previous) => {
    if (element === previous) return;
    sortable?.destroy();
    sortable = undefined;
    if (element) void attach(element);
  }, { immediate: true, flush: 'post' });

  watch(readOnly, (value) => sortable?.option('disabled', value));

  onBeforeUnmount(() => {
    disposed = true;
    sortable?.destroy();
  });
  return listId;
}

let listCount = 0;

/** The dragged row back at its place among the list's rows, where Vue's rendering expects it. */
function putBack(listElement: HTMLElement, row: HTMLElement, index: number): void {
  const rows = Array.from(listElement.children).filter((child) => child !== row && child.tagName === 'LI');
  listElement.insertBefore(row, rows[index] ?? null);
}
