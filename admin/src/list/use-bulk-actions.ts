import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import { publishPiece, setArchived } from '../api/pieces';
import type { PieceDocument, PieceTypeSchema } from '../api/types';
import { confirmAction } from '../ui/confirm';
import { notify } from '../ui/notify';
import { t } from '../i18n';
import type { BulkAction } from './BulkBar.vue';
import { bulkSummary, runBulk } from './run-bulk';

const calls: Readonly<Record<BulkAction, (type: string, doc: PieceDocument) => Promise<unknown>>> = {
  publish: (type, doc) => publishPiece(type, doc._id),
  archive: (type, doc) => setArchived(type, doc, true),
  restore: (type, doc) => setArchived(type, doc, false),
};

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
 * `can` allows for the selected rows, a confirm before archiving, the calls four at a time, one summary notice, and one
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

  const actions = computed<BulkAction[]>(() => {
    const type = options.type.value;
    if (!type) return [];
    if (options.archivedView()) return mayArchive.value ? ['restore'] : [];
    const publish: BulkAction[] = type.can.publish && type.localized ? ['publish'] : [];
    return [...publish, ...(mayArchive.value ? (['archive'] as const) : [])];
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

  /** Answers once the list has reloaded; false when nothing ran (nothing selected, or not confirmed). */
  async function run(action: BulkAction): Promise<boolean> {
    const type = options.type.value;
    const docs = options.rows.value.filter((row) => selected.value.has(row._id));
    if (!type || docs.length === 0) return false;
    if (action === 'archive' && !(await confirmArchive(docs.length, type))) return false;
    busy.value = true;
    try {
      const typeName = options.typeName();
      const outcome = await runBulk(docs, (doc) => calls[action](typeName, doc));
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

  return { selected, busy, actions, selectable, withheld, toggle, selectAll, clear: () => (selected.value = new Set()), run };
}
