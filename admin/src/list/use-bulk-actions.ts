import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import { deletePiece, patchPiece, publishPiece, setArchived, unpublishPiece } from '../api/pieces';
import type { FieldSchema, PieceDocument, PieceTypeSchema } from '../api/types';
import { t } from '../i18n';
import { confirmAction } from '../ui/confirm';
import { notify } from '../ui/notify';
import type { BulkAction, FieldChange } from './BulkBar.vue';
import { bulkSummary, runBulk } from './run-bulk';

/** One call per document; `change` is the field and value of "Set a field". */
const calls: Readonly<Record<BulkAction, (type: string, doc: PieceDocument, change?: FieldChange) => Promise<unknown>>> = {
  publish: (type, doc) => publishPiece(type, doc._id),
  unpublish: (type, doc) => unpublishPiece(type, doc._id),
  archive: (type, doc) => setArchived(type, doc, true),
  restore: (type, doc) => setArchived(type, doc, false),
  delete: (type, doc) => deletePiece(type, doc._id),
  setField: (type, doc, change) => patchPiece(type, doc._id, { [change!.field.name]: change!.value }),
};
/** Field types whose one value "Set a field" can take from a single control. */
const settableTypes = new Set(['string', 'integer', 'float', 'select', 'boolean']);
/** The title and slug are each document's own; archiving has its own action. */
const notSettable = new Set(['title', 'slug', 'archived']);

export function settableFields(type: PieceTypeSchema): FieldSchema[] {
  return type.fields.filter((field) => settableTypes.has(field.type) && !notSettable.has(field.name) && !field.textarea);
}

interface BulkOptions {
  readonly typeName: () => string;
  readonly type: Ref<PieceTypeSchema | undefined>;
  readonly rows: Ref<readonly PieceDocument[]>;
  readonly archivedView: () => boolean;
  /** Reloads the list once, after every call has answered. */
  readonly reload: () => Promise<void>;
}

/**
 * The row selection of one list page and the bulk actions on it: only the actions the type's
 * `can` allows for the selected rows, a confirm with the count before archiving, deleting or setting a field, the calls four at a time, one summary notice, and one
 * reload. A new page of rows clears the selection.
 */
export function useBulkActions(options: BulkOptions) {
  const selected = shallowRef<ReadonlySet<string>>(new Set());
  const busy = ref(false);
  watch(options.rows, () => (selected.value = new Set()));

  /**
   * Archiving or restoring a published document changes its published version, which needs the
   * publish permission (the editor's rule too): a role without it is offered them only while
   * every selected row is a draft that was never published.
   */
  const mayArchive = computed(() => {
    const type = options.type.value;
    if (!type?.can.edit) return false;
    return type.can.publish || options.rows.value.every((row) => !selected.value.has(row._id) || !row.lastPublishedAt);
  });

  /** Whether rows can be selected at all: some action of the type is open to the role. */
  const selectable = computed(() => {
    const type = options.type.value;
    return !!type && (type.can.edit || (type.can.publish && type.localized && !options.archivedView()));
  });

  /** Why an action the role has for other rows is not offered for these. */
  const withheld = computed(() =>
    options.type.value?.can.edit && !mayArchive.value
      ? t(options.archivedView() ? 'bulk.withheldRestore' : 'bulk.withheldArchive')
      : '',
  );

  const settable = computed(() => (options.type.value?.can.edit ? settableFields(options.type.value) : []));

  /** Deleting a published document needs the publish permission too, as archiving it does: the same rule. */
  const actions = computed<BulkAction[]>(() => {
    const type = options.type.value;
    if (!type) return [];
    const removals: BulkAction[] = mayArchive.value ? [options.archivedView() ? 'restore' : 'archive', 'delete'] : [];
    if (options.archivedView()) return removals;
    const publishing: BulkAction[] = type.can.publish && type.localized ? ['publish', 'unpublish'] : [];
    const setField: BulkAction[] = settable.value.length ? ['setField'] : [];
    return [...publishing, ...setField, ...removals];
  });

  function toggle(id: string) {
    const next = new Set(selected.value);
    if (!next.delete(id)) next.add(id);
    selected.value = next;
  }

  function selectAll(select: boolean) {
    selected.value = new Set(select ? options.rows.value.map((row) => row._id) : []);
  }

  async function confirmArchive(count: number, type: PieceTypeSchema): Promise<boolean> {
    const noun = count === 1 ? type.label.toLowerCase() : type.pluralLabel.toLowerCase();
    return confirmAction({
      title: t('bulk.archiveTitle', { count, noun }),
      message: t('bulk.archiveMessage'),
      confirmLabel: t('bulk.actions.archive'),
      danger: true,
    });
  }

  /** Deleting and setting a field cannot be undone from the list: asked first, with the count. */
  async function confirmLasting(action: 'delete' | 'setField', count: number, type: PieceTypeSchema, change?: FieldChange): Promise<boolean> {
    const noun = count === 1 ? type.label.toLowerCase() : type.pluralLabel.toLowerCase();
    if (action === 'delete') {
      return confirmAction({
        title: t('bulk.deleteTitle', { count, noun }),
        message: t('bulk.deleteMessage'),
        confirmLabel: t('bulk.actions.delete'),
        danger: true,
      });
    }
    return confirmAction({
      title: t('bulk.setFieldTitle', { field: change!.field.label, count, noun }),
      message: t('bulk.setFieldMessage', { field: change!.field.label.toLowerCase() }),
      confirmLabel: t('bulk.set'),
    });
  }

  async function confirmed(action: BulkAction, count: number, type: PieceTypeSchema, change?: FieldChange): Promise<boolean> {
    if (action === 'archive') return confirmArchive(count, type);
    if (action === 'delete' || action === 'setField') return confirmLasting(action, count, type, change);
    return true;
  }

  /** Answers once the list has reloaded; false when nothing ran (nothing selected, or not confirmed). */
  async function run(action: BulkAction, change?: FieldChange): Promise<boolean> {
    const type = options.type.value;
    const docs = options.rows.value.filter((row) => selected.value.has(row._id));
    if (!type || docs.length === 0 || (action === 'setField' && !change)) return false;
    if (!(await confirmed(action, docs.length, type, change))) return false;
    busy.value = true;
    try {
      const typeName = options.typeName();
      const outcome = await runBulk(docs, (doc) => calls[action](typeName, doc, change));
      const failed = outcome.failed.length > 0;
      const summary = bulkSummary(outcome, { action, label: type.label, pluralLabel: type.pluralLabel }, (doc) => doc.title);
      notify(summary, failed ? 'error' : 'success', failed ? 10000 : 5000);
    } finally {
      busy.value = false;
      selected.value = new Set();
      await options.reload();
    }
    return true;
  }

  return { selected, busy, actions, settable, selectable, withheld, toggle, selectAll, clear: () => (selected.value = new Set()), run };
}
