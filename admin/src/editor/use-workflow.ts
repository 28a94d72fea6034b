import { ref } from 'vue';
import { useRouter } from 'vue-router';
import {
  deletePiece, publishPiece, revertDraftToPublished, revertPublishedToPrevious, schedulePiece, setArchived, unpublishPiece,
  type ScheduleBody,
} from '../api/pieces';
import type { PieceDocument } from '../api/types';
import { confirmAction } from '../ui/confirm';
import { notify, notifyError } from '../ui/notify';
import { changedSinceRead } from './conflict';
import type { EditedDocument, EditorTarget, LoadedDocument } from './use-document-loader';

/**
 * The draft workflow's buttons, run one at a time, saving unsaved changes first where the
 * action would leave them behind, and reloading the document after. Each sends `If-Match` with
 * the ETag of the version it acts on, so none acts on a version the editor has not seen.
 */
export function useWorkflow(target: EditorTarget, loaded: LoadedDocument, save: () => Promise<EditedDocument | undefined>) {
  const router = useRouter();
  const { doc, tracker, hasPublished } = loaded;
  const busy = ref('');

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
      await showRefusal(error);
    } finally {
      busy.value = '';
    }
  }

  /** Saves first when the form has changes the action would otherwise leave behind. */
  async function savedDraft(): Promise<EditedDocument | undefined> {
    if (!doc.value?._id || tracker.check()) return save();
    return doc.value;
  }

  /**
   * A 412: the version changed since the editor read it, and the action was not done. The form
   * shows the version now stored, unless it holds changes of the user's (the next save compares).
   */
  async function showRefusal(error: unknown): Promise<void> {
    const change = changedSinceRead(error);
    if (!change) return notifyError(error);
    const unsaved = tracker.check();
    notify(`Nothing was done: ${change.message}, after you opened it.${unsaved ? '' : ' Their version is shown now.'}`, 'error', 10000);
    if (!unsaved) await loaded.load(true);
  }

  const draftId = () => doc.value!._id!;
  /**
   * `If-Match` of every action: the ETag of the draft the editor shows. The server checks it
   * against the document's versions in this locale, so it also guards an action that writes the
   * published version (archiving a published document).
   */
  const draftTag = () => ({ ifMatch: loaded.etag.value });

  const workflow = {
    saveDraft: () =>
      run('save', async () => {
        const saved = await save();
        if (saved) notify(target.type.autopublish ? 'Saved and published' : 'Draft saved');
        return undefined;
      }),
    publish: () =>
      run('publish', async () => ((await savedDraft()) ? (await publishPiece(target.typeName, draftId(), draftTag()), 'Published') : undefined)),
    /** A scheduled publish publishes what the draft holds then: unsaved changes are saved first. */
    schedule: (body: ScheduleBody) =>
      run('schedule', async () => {
        if (body.publishAt && !(await savedDraft())) return undefined;
        await schedulePiece(target.typeName, draftId(), body, draftTag());
        return Object.values(body).some((at) => at) ? 'Scheduled' : 'Schedule cancelled';
      }),
    unpublish: () => run('unpublish', async () => (await unpublishPiece(target.typeName, draftId(), draftTag()), 'Unpublished')),
    discard: () =>
      run('discard', async () => {
        const sure = await confirmAction({
          title: 'Discard draft changes?',
          message: 'The draft goes back to the published version. Changes since it was published are lost.',
          confirmLabel: 'Discard changes',
          danger: true,
        });
        return sure ? (await revertDraftToPublished(target.typeName, draftId(), draftTag()), 'Draft changes discarded') : undefined;
      }),
    undoPublish: () =>
      run('undoPublish', async () => {
        const sure = await confirmAction({
          title: 'Undo publish?',
          message: 'The previously published version is published again. The draft is not changed.',
          confirmLabel: 'Undo publish',
        });
        return sure ? (await revertPublishedToPrevious(target.typeName, draftId(), draftTag()), 'Previous version published again') : undefined;
      }),
    archive: (archived: boolean) =>
      run(archived ? 'archive' : 'restore', async () => {
        const saved = await savedDraft();
        if (!saved) return undefined;
        await setArchived(target.typeName, saved as PieceDocument, archived, draftTag());
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
        await deletePiece(target.typeName, draftId(), draftTag());
        tracker.forget();
        notify('Deleted');
        await router.push({ name: 'list', params: { type: target.typeName } });
        return undefined;
      }),
  };

  return { busy, workflow };
}
