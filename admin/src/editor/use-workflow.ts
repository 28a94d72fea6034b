import { computed, ref } from 'vue';
import { useRouter } from 'vue-router';
import {
  deletePiece, publishPiece, revertDraftToPublished, revertPublishedToPrevious, setArchived, unpublishPiece,
} from '../api/pieces';
import type { PieceDocument } from '../api/types';
import { confirmAction } from '../ui/confirm';
import { notify, notifyError } from '../ui/notify';
import { availableActions } from './available-actions';
import type { EditedDocument, EditorTarget, LoadedDocument } from './use-document-loader';

/**
 * The draft workflow's buttons: which apply, and running them one at a time, saving unsaved
 * changes first where the action would leave them behind, and reloading the document after.
 */
export function useWorkflow(target: EditorTarget, loaded: LoadedDocument, save: () => Promise<EditedDocument | undefined>) {
  const router = useRouter();
  const { doc, tracker, hasPublished, hasPrevious } = loaded;
  const busy = ref('');
  const actions = computed(() =>
    availableActions({ type: target.type, doc: doc.value, hasPublished: hasPublished.value, hasPrevious: hasPrevious.value }),
  );

  /** Runs one action at a time; its refusal is shown, and the document reloads after it. */
  async function run(name: string, action: () => Promise<string | undefined>): Promise<void> {
    if (busy.value) return;
    busy.value = name;
    try {
      const done = await action();
      if (done) {
        notify(done);
        await loaded.load(true);
      }
    } catch (error) {
      notifyError(error);
    } finally {
      busy.value = '';
    }
  }

  /** Saves first when the form has changes the action would otherwise leave behind. */
  async function savedDraft(): Promise<EditedDocument | undefined> {
    if (!doc.value?._id || tracker.check()) return save();
    return doc.value;
  }

  const draftId = () => doc.value!._id!;

  const workflow = {
    saveDraft: () =>
      run('save', async () => {
        const saved = await save();
        if (saved) notify(target.type.autopublish ? 'Saved and published' : 'Draft saved');
        return undefined;
      }),
    publish: () =>
      run('publish', async () => ((await savedDraft()) ? (await publishPiece(target.typeName, draftId()), 'Published') : undefined)),
    unpublish: () => run('unpublish', async () => (await unpublishPiece(target.typeName, draftId()), 'Unpublished')),
    discard: () =>
      run('discard', async () => {
        const sure = await confirmAction({
          title: 'Discard draft changes?',
          message: 'The draft goes back to the published version. Changes since it was published are lost.',
          confirmLabel: 'Discard changes',
          danger: true,
        });
        return sure ? (await revertDraftToPublished(target.typeName, draftId()), 'Draft changes discarded') : undefined;
      }),
    undoPublish: () =>
      run('undoPublish', async () => {
        const sure = await confirmAction({
          title: 'Undo publish?',
          message: 'The previously published version is published again. The draft is not changed.',
          confirmLabel: 'Undo publish',
        });
        return sure ? (await revertPublishedToPrevious(target.typeName, draftId()), 'Previous version published again') : undefined;
      }),
    archive: (archived: boolean) =>
      run(archived ? 'archive' : 'restore', async () => {
        const saved = await savedDraft();
        if (!saved) return undefined;
        await setArchived(target.typeName, saved as PieceDocument, archived);
        return archived ? 'Archived' : 'Restored';
      }),
    remove: () =>
      run('delete', async () => {
        const sure = await confirmAction({
          title: `Delete “${doc.value?.title || 'this document'}”?`,
          message: `This deletes it in this locale for good: the draft${hasPublished.value ? ' and the published version' : ''}. Other locales stay.`,
          confirmLabel: 'Delete',
          danger: true,
        });
        if (!sure) return undefined;
        await deletePiece(target.typeName, draftId());
        tracker.forget();
        notify('Deleted');
        await router.push({ name: 'list', params: { type: target.typeName } });
        return undefined;
      }),
  };

  return { busy, actions, workflow };
}
